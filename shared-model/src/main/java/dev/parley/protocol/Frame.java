package dev.parley.protocol;

/** A protocol v1 frame: a JSON object whose {@code type} selects the route. */
public sealed interface Frame permits ClientFrame, ServerFrame {
    /** The wire value of the frame's {@code type} field. */
    String type();
}
