// The injected clock: `() => Date` everywhere, so tests move time by passing their own. The raw
// hot paths (a cached card, a cached /status) only compare milliseconds: for the system clock
// they read Date.now, which allocates no Date per request.
type Clock = () => Date;

export const systemClock: Clock = () => new Date();

/** The clock as milliseconds: Date.now for the system clock, the injected clock's time otherwise. */
export const millisOf = (clock: Clock): (() => number) => (clock === systemClock ? Date.now : () => clock().getTime());
