package dev.parley.protocol;

/**
 * What decoding a frame gives: the frame, or the {@code error} frame to answer with. Decoding never
 * throws; every way a frame can be wrong ends here as a {@link Rejected}.
 */
public sealed interface DecodeResult<F extends Frame> {

    record Decoded<F extends Frame>(F frame) implements DecodeResult<F> {
        public Decoded {
            java.util.Objects.requireNonNull(frame, "frame");
        }
    }

    record Rejected<F extends Frame>(ServerFrame.Error error) implements DecodeResult<F> {
        public Rejected {
            java.util.Objects.requireNonNull(error, "error");
        }
    }
}
