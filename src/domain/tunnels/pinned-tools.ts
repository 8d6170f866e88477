// Pinned tool names (SPEC 2.3): the edge hands over every tools/list result that passes through;
// only the names are kept, in order, without duplicates. Descriptions and input schemas are
// never stored, so a card can never leak them.
import { badRequest, noSuchTunnel, PROBLEMS } from '../errors.js';
import { cardHostsOf } from './names.js';
import type { TunnelsDeps } from './tunnels.js';
import { readTunnelTools, setPinnedTools } from './store.js';
import { changeAccount } from '../activity/account-change.js';
import { toolsChanged } from './tunnel-events.js';

/** MCP tool names are short identifiers; anything longer is not a tool name. */
const NAME_MAX = 128;
const TOOLS_MAX = 1000;

/** The names of a tools/list result `{tools:[{name, …}]}`, in order, duplicates dropped. */
export function toolNamesOf(result: unknown): string[] {
  const tools = typeof result === 'object' && result !== null ? (result as { tools?: unknown }).tools : undefined;
  if (!Array.isArray(tools)) throw badRequest(PROBLEMS.invalidPinnedTools, 'The body must be a tools/list result: {"tools":[{"name":…}]}.');
  if (tools.length > TOOLS_MAX) throw badRequest(PROBLEMS.invalidPinnedTools, `At most ${TOOLS_MAX} tools can be pinned.`);
  const names = new Set<string>();
  for (const tool of tools) {
    const name = typeof tool === 'object' && tool !== null ? (tool as { name?: unknown }).name : undefined;
    if (typeof name !== 'string' || name.length === 0 || name.length > NAME_MAX) {
      throw badRequest(PROBLEMS.invalidPinnedTools, `Every tool needs a "name" of 1 to ${NAME_MAX} characters.`);
    }
    names.add(name);
  }
  return [...names];
}

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((v, i) => v === b[i]);

export async function pinTools(deps: TunnelsDeps, tunnelId: string, result: unknown): Promise<void> {
  const names = toolNamesOf(result);
  const tunnel = await readTunnelTools(deps.db, tunnelId);
  if (!tunnel) throw noSuchTunnel();
  // Every tools/list passing through lands here; an unchanged list costs no write and keeps the cached card.
  if (sameList(tunnel.pinnedTools, names)) return;
  await changeAccount(deps, tunnel.accountId, async (tx, change) => {
    if (!(await setPinnedTools(tx, tunnelId, names))) throw noSuchTunnel();
    await toolsChanged(change, { ...tunnel, pinnedTools: names }, tunnel.pinnedTools, deps.config.zone, deps.clock());
  });
  await deps.events.emit('tunnel.changed', {
    tunnelId,
    hosts: cardHostsOf(tunnel, tunnel.account.slug, deps.config.zone),
  });
}
