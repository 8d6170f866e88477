// In-process domain events: how one domain reacts to another's change without importing it
// (the card cache drops an account's cards when its slug changes or it is deleted). Handlers run
// after the change has committed; emit awaits them so the next request sees their effect.
import type { Logger } from 'pino';

export interface DomainEventMap {
  /** A session was issued: the account's last login changed. */
  /** `viewVersion`: the account view's version the sign-in committed (account-view.ts), when the sign-in statement read it. */
  'account.signedIn': { accountId: string; viewVersion?: number | null };
  /** A change to the account committed (activity/account-change.ts): what it shows may differ. */
  'account.changed': { accountId: string };
  'account.slugChanged': { accountId: string; oldSlug: string; newSlug: string };
  'account.deleted': { accountId: string; slug: string; tunnelIds: string[] };
  /** A tunnel change that can alter a card: every card host before and after the change. */
  'tunnel.changed': { tunnelId: string; hosts: string[] };
}

type Handler<K extends keyof DomainEventMap> = (payload: DomainEventMap[K]) => Promise<void> | void;

export class DomainEvents {
  private readonly handlers = new Map<keyof DomainEventMap, Handler<never>[]>();

  constructor(private readonly logger: Logger) {}

  on<K extends keyof DomainEventMap>(name: K, handler: Handler<K>): void {
    const list = this.handlers.get(name) ?? [];
    list.push(handler as Handler<never>);
    this.handlers.set(name, list);
  }

  async emit<K extends keyof DomainEventMap>(name: K, payload: DomainEventMap[K]): Promise<void> {
    for (const h of (this.handlers.get(name) ?? []) as unknown as Handler<K>[]) {
      try {
        await h(payload);
      } catch (err) {
        this.logger.error({ event: name, err: (err as Error).message }, 'domain event handler failed');
      }
    }
  }
}
