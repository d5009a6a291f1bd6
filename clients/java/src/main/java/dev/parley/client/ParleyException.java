package dev.parley.client;

import dev.parley.protocol.ServerFrame;

/** The server refused a request: its error frame, whose message names the field or rule. */
public final class ParleyException extends RuntimeException {
    private final transient ServerFrame.Error error;

    public ParleyException(ServerFrame.Error error) {
        super(error.code().wireName() + ": " + error.message());
        this.error = error;
    }

    public ServerFrame.Error error() {
        return error;
    }
}
