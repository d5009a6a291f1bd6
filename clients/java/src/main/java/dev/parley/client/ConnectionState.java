package dev.parley.client;

/** Where the client's connection stands. */
public enum ConnectionState {
    /** Opening the WebSocket. */
    CONNECTING,
    /** Connected, catching up on what it missed ({@code sync.request} until {@code sync.done}). */
    SYNCING,
    /** Caught up: live messages flow, sends go out. */
    ONLINE,
    /** Lost or refused; a reconnect is scheduled with backoff. */
    OFFLINE,
    /** {@link ParleyClient#close} was called. */
    CLOSED
}
