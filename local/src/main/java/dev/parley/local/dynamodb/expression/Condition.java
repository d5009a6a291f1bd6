package dev.parley.local.dynamodb.expression;

import java.util.List;

/** A condition, filter or key-condition expression, parsed. */
public sealed interface Condition {
    enum Comparator {
        EQ("="), NE("<>"), LT("<"), LE("<="), GT(">"), GE(">=");

        final String symbol;

        Comparator(String symbol) {
            this.symbol = symbol;
        }

        static Comparator of(String symbol) {
            for (Comparator c : values()) {
                if (c.symbol.equals(symbol)) {
                    return c;
                }
            }
            return null;
        }
    }

    record Compare(Comparator comparator, Operand left, Operand right) implements Condition {
    }

    record Between(Operand value, Operand lower, Operand upper) implements Condition {
    }

    record In(Operand value, List<Operand> options) implements Condition {
    }

    record And(Condition left, Condition right) implements Condition {
    }

    record Or(Condition left, Condition right) implements Condition {
    }

    record Not(Condition condition) implements Condition {
    }

    record AttributeExists(Path path) implements Condition {
    }

    record AttributeNotExists(Path path) implements Condition {
    }

    record AttributeType(Path path, Operand type) implements Condition {
    }

    record BeginsWith(Operand value, Operand prefix) implements Condition {
    }

    record Contains(Operand value, Operand operand) implements Condition {
    }
}
