package dev.parley.local.dynamodb.model;

/** The types a key attribute may have. */
public enum ScalarType {
    S, N, B;

    public boolean matches(AttrValue value) {
        return switch (this) {
            case S -> value instanceof AttrValue.S;
            case N -> value instanceof AttrValue.N;
            case B -> value instanceof AttrValue.B;
        };
    }
}
