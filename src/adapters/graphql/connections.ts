// Connections over a bounded list already read whole (an organization's members, tunnels, tokens,
// webhooks, invitations): `first` and `after` page forward through it. An edge's cursor is made
// only when the document asks for it (the REST lists never do), which for an organization's 1,000
// tunnels is most of what a connection would otherwise cost. The cursors are Relay's array
// connection cursors (base64 of `arrayconnection:<offset>`).
import { badRequest, PROBLEMS } from '../../domain/errors.js';

interface PageArgs {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
}

const PREFIX = 'arrayconnection:';
const cursorOf = (offset: number): string => Buffer.from(`${PREFIX}${offset}`).toString('base64');

function offsetOf(cursor: string): number {
  const text = Buffer.from(cursor, 'base64').toString();
  const offset = text.startsWith(PREFIX) ? Number(text.slice(PREFIX.length)) : Number.NaN;
  if (!Number.isInteger(offset) || offset < 0) throw badRequest(PROBLEMS.invalidCursor, 'The cursor `after` is not one this list gave.');
  return offset;
}

class Edge<T> {
  constructor(
    readonly node: T,
    private readonly offset: number,
  ) {}

  get cursor(): string {
    return cursorOf(this.offset);
  }
}

/** The page of `items` that `args` asks for (forward only; `first` at most `max`, `max` by default). */
export function arrayConnection<T>(items: readonly T[], args: PageArgs, max: number) {
  if (args.last != null || args.before != null) throw badRequest(PROBLEMS.invalidCursor, 'Page forward with first and after.');
  if (args.first != null && (args.first < 0 || args.first > max)) throw badRequest(PROBLEMS.invalidCursor, `first is from 0 to ${max}.`);
  const start = args.after == null ? 0 : offsetOf(args.after) + 1;
  const end = Math.min(items.length, start + (args.first ?? max));
  const edges: Edge<T>[] = [];
  for (let i = start; i < end; i++) edges.push(new Edge(items[i]!, i));
  return {
    edges,
    pageInfo: {
      hasNextPage: end < items.length,
      hasPreviousPage: start > 0,
      startCursor: edges.length > 0 ? cursorOf(start) : null,
      endCursor: edges.length > 0 ? cursorOf(end - 1) : null,
    },
  };
}
