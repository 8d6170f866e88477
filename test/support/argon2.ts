// Reading a stored argon2 hash's parameters in tests.

/** "argon2id m=19456 t=2 p=1" from a PHC string, whatever order its parameters come in. */
export function argonParams(hash: string | null): string {
  const m = /^\$(argon2(?:id|i|d))\$v=19\$([^$]+)\$/.exec(hash ?? '');
  if (!m) return `not argon2: ${hash}`;
  const params = Object.fromEntries(m[2]!.split(',').map((kv) => kv.split('=')));
  return `${m[1]} m=${params.m} t=${params.t} p=${params.p}`;
}
