/**
 * The client's timers, all of them: cancelled together on close(). While the client runs they keep a Node process alive
 * (keepProcessAlive), so a program whose only work is the client does not exit while it reconnects with sends queued.
 */
export class Scheduler {
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();
  private ticker: ReturnType<typeof setInterval> | undefined;
  private stopped = false;

  constructor(private readonly keepProcessAlive: boolean) {}

  /** Runs work after ms, unless the scheduler stopped meanwhile; the result cancels it. */
  later(work: () => void, ms: number): ReturnType<typeof setTimeout> {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (!this.stopped) work();
    }, ms);
    if (!this.keepProcessAlive) unref(timer);
    this.timers.add(timer);
    return timer;
  }

  cancel(timer: ReturnType<typeof setTimeout> | undefined): void {
    if (timer === undefined) return;
    clearTimeout(timer);
    this.timers.delete(timer);
  }

  every(work: () => void, ms: number): void {
    this.ticker = setInterval(() => {
      if (!this.stopped) work();
    }, ms);
    if (!this.keepProcessAlive) unref(this.ticker);
  }

  stop(): void {
    this.stopped = true;
    if (this.ticker !== undefined) clearInterval(this.ticker);
    this.timers.forEach((timer) => clearTimeout(timer));
    this.timers.clear();
  }
}

/** In Node, a timer that does not keep the process alive on its own (keepProcessAlive: false). */
function unref(timer: unknown): void {
  (timer as { unref?: () => void }).unref?.();
}

type Listening = { addEventListener?: (event: string, listener: () => void) => void; removeEventListener?: (event: string, listener: () => void) => void };

/**
 * In a browser, the app's wake-up calls: reconnect at once when the network comes back (online) or a hidden tab, whose
 * timers the browser throttled, is shown again (visibilitychange). Nothing in Node. The result stops listening.
 */
export function watchTheNetwork(wake: () => void): () => void {
  const target = globalThis as Listening & { document?: Listening & { visibilityState?: string } };
  const onVisible = (): void => {
    if (target.document?.visibilityState !== "hidden") wake();
  };
  target.addEventListener?.("online", wake);
  target.document?.addEventListener?.("visibilitychange", onVisible);
  return () => {
    target.removeEventListener?.("online", wake);
    target.document?.removeEventListener?.("visibilitychange", onVisible);
  };
}
