package dev.parley.protocol;

/**
 * What decoding a frame gives: the frame, or the {@code error} frame to answer with. Decoding never
 * throws; every way a frame can be wrong ends here as a {@link Rejected}.
 */
public sealed interface DecodeResult<F extends Frame> {

    /**
     * A frame and its request reference: for a client frame its {@code id} (checked: {@link RequestRefs}), for a server frame
     * its {@code ref}, the id of the request it answers. Empty when the frame has none (or, for a server frame, a null one).
     */
    record Decoded<F extends Frame>(F frame, java.util.Optional<String> ref) implements DecodeResult<F> {
        public Decoded {
            java.util.Objects.requireNonNull(frame, "frame");
            java.util.Objects.requireNonNull(ref, "ref");
        }

        /** A frame with no request reference. */
        public Decoded(F frame) {
            this(frame, java.util.Optional.empty());
        }
    }

    record Rejected<F extends Frame>(ServerFrame.Error error) implements DecodeResult<F> {
        public Rejected {
            java.util.Objects.requireNonNull(error, "error");
        }
    }
}
