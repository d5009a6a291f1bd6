package dev.parley.local.dynamodb.expression;

/** One lexical token of an expression. */
record Token(Kind kind, String text, int position) {
    enum Kind {
        IDENTIFIER,      // a plain attribute name, keyword or function name
        NAME_PLACEHOLDER, // #name
        VALUE_PLACEHOLDER, // :value
        NUMBER,          // a list index
        OPERATOR,        // = <> < <= > >= + -
        LPAREN, RPAREN, LBRACKET, RBRACKET, COMMA, DOT,
        END
    }

    boolean is(Kind expected) {
        return kind == expected;
    }

    boolean isKeyword(String keyword) {
        return kind == Kind.IDENTIFIER && text.equalsIgnoreCase(keyword);
    }

    boolean isOperator(String operator) {
        return kind == Kind.OPERATOR && text.equals(operator);
    }
}
