// One health probe: GET <url> over plain HTTP, judged by the status code alone. The whole probe
// (DNS, connect, request, response headers) is bounded by one hard timer, so a hung broker, a
// half-open connection or a server that never answers costs at most `timeoutMs`.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { performance } from 'node:perf_hooks';

export interface ProbeResult {
  ok: boolean;
  /** "ok", "status <code>", or the connection error message. */
  detail: string;
  /** How long the probe took, in whole milliseconds (a timeout reports about `timeoutMs`). */
  latencyMs: number;
}

export const PROBE_TIMEOUT_MS = 2000;

export function probeHealth(url: string, timeoutMs = PROBE_TIMEOUT_MS): Promise<ProbeResult> {
  return new Promise((resolve) => {
    let settled = false;
    const started = performance.now();
    const target = new URL(url);
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    // A fresh connection per probe (agent: false): a pooled socket to a half-dead peer would
    // otherwise be reused; probes run once per 10 s, so the handshake costs nothing.
    const req = send(target, { method: 'GET', agent: false, headers: { accept: '*/*', connection: 'close' } });
    const settle = (result: Omit<ProbeResult, 'latencyMs'>): void => {
      if (settled) return;
      settled = true;
      const latencyMs = Math.round(performance.now() - started);
      clearTimeout(timer);
      // The body is never needed: the status code is the verdict.
      req.destroy();
      resolve({ ...result, latencyMs });
    };
    const timer = setTimeout(() => settle({ ok: false, detail: `timeout after ${timeoutMs} ms` }), timeoutMs);
    req.on('response', (res) => {
      res.on('error', () => {});
      const code = res.statusCode ?? 0;
      settle(code >= 200 && code < 300 ? { ok: true, detail: 'ok' } : { ok: false, detail: `status ${code}` });
    });
    req.on('error', (err) => settle({ ok: false, detail: errorMessage(err) }));
    req.end();
  });
}

/** Node reports "connect ECONNREFUSED 127.0.0.1:1"; an AggregateError (several addresses tried) has no message of its own. */
function errorMessage(err: Error & { code?: string; errors?: Error[] }): string {
  if (err.message) return err.message;
  const inner = err.errors?.find((e) => e.message)?.message;
  return inner ?? err.code ?? 'connection failed';
}
