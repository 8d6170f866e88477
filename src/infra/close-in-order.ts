// Shutdown's steps, each run even when one before it failed: a failing HTTP close or cache close
// must not leave the database unclosed (the embedded PostgreSQL then writes its checkpoint, and
// the next start does not recover from its log). Each failure is reported; the result says
// whether every step succeeded (the process's exit status).

export type CloseStep = readonly [name: string, close: () => Promise<unknown> | unknown];

export async function closeInOrder(steps: readonly CloseStep[], onError: (step: string, err: unknown) => void): Promise<boolean> {
  let ok = true;
  for (const [name, close] of steps) {
    try {
      await close();
    } catch (err) {
      ok = false;
      onError(name, err);
    }
  }
  return ok;
}
