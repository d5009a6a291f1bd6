package dev.parley.local.dynamodb.expression;

import java.util.List;

/** A document path: a top-level attribute name, then map keys and list indexes, with names already resolved. */
public record Path(List<Element> elements) {
    public Path {
        elements = List.copyOf(elements);
        if (elements.isEmpty() || !(elements.getFirst() instanceof Name)) {
            throw new IllegalArgumentException("a path starts with an attribute name");
        }
    }

    public sealed interface Element permits Name, Index {
    }

    public record Name(String name) implements Element {
        @Override
        public String toString() {
            return name;
        }
    }

    public record Index(int index) implements Element {
        @Override
        public String toString() {
            return "[" + index + "]";
        }
    }

    public String topLevelName() {
        return ((Name) elements.getFirst()).name();
    }

    public boolean isTopLevel() {
        return elements.size() == 1;
    }

    /** True when one path is a prefix of the other (or they are equal): DynamoDB's "overlap". */
    public boolean overlaps(Path other) {
        int n = Math.min(elements.size(), other.elements.size());
        return elements.subList(0, n).equals(other.elements.subList(0, n));
    }

    /** As DynamoDB prints a path in messages: {@code [a, b, [2]]}. */
    @Override
    public String toString() {
        return elements.toString();
    }
}
