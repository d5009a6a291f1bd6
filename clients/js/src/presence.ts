import type { PresenceBatch, UserId } from "./frames.generated.js";
import { LIMITS } from "./frames.generated.js";
import type { Requests } from "./requests.js";
import { PRESENCE_TTL_SECONDS } from "./settings.js";

/** The users whose presence the app follows: subscribed, renewed before the server's subscription runs out and after each reconnect. */
export class PresenceWatch {
  private readonly watched = new Set<UserId>();
  private renewedAt = 0;

  constructor(private readonly requests: Requests, private readonly renewalMs: number) {}

  async subscribe(users: UserId[]): Promise<PresenceBatch> {
    users.forEach((user) => this.watched.add(user));
    try {
      return await this.requests.request({ type: "presence.subscribe", user_ids: users, ttl_seconds: PRESENCE_TTL_SECONDS }, "presence.batch");
    } finally {
      this.renewedAt = Date.now();
    }
  }

  unsubscribe(users: UserId[]): void {
    users.forEach((user) => this.watched.delete(user));
  }

  renewIfDue(now: number): void {
    if (this.watched.size > 0 && now - this.renewedAt > this.renewalMs) this.renew();
  }

  /** The followed users' subscription again, a hundred to a frame (the server's bound); the answers become presence events. */
  renew(): void {
    if (this.watched.size === 0) return;
    this.renewedAt = Date.now();
    const users = [...this.watched];
    for (let from = 0; from < users.length; from += LIMITS.max_presence_users) {
      this.requests.ask({ type: "presence.subscribe", user_ids: users.slice(from, from + LIMITS.max_presence_users), ttl_seconds: PRESENCE_TTL_SECONDS },
        "presence.batch").catch(() => undefined);
    }
  }
}
