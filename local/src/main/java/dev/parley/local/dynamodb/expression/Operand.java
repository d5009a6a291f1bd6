package dev.parley.local.dynamodb.expression;

import dev.parley.local.dynamodb.model.AttrValue;

/** Something an expression reads: a path, a value, {@code size(path)}, and in updates arithmetic and the two update functions. */
public sealed interface Operand {
    record PathOperand(Path path) implements Operand {
    }

    record Value(String placeholder, AttrValue value) implements Operand {
    }

    record Size(Path path) implements Operand {
    }

    record IfNotExists(Path path, Operand fallback) implements Operand {
    }

    record ListAppend(Operand first, Operand second) implements Operand {
    }

    record Plus(Operand left, Operand right) implements Operand {
    }

    record Minus(Operand left, Operand right) implements Operand {
    }
}
