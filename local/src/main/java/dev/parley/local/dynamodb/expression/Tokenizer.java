package dev.parley.local.dynamodb.expression;

import java.util.ArrayList;
import java.util.List;

/** Splits an expression into tokens; an illegal character is a syntax error naming it. */
final class Tokenizer {
    private Tokenizer() {
    }

    static List<Token> tokenize(String text, ExpressionKind kind) {
        List<Token> tokens = new ArrayList<>();
        int i = 0;
        int n = text.length();
        while (i < n) {
            char c = text.charAt(i);
            if (Character.isWhitespace(c)) {
                i++;
                continue;
            }
            int start = i;
            if (c == '#' || c == ':') {
                i++;
                while (i < n && isWordChar(text.charAt(i))) {
                    i++;
                }
                if (i == start + 1) {
                    throw kind.syntaxError(String.valueOf(c), text, start);
                }
                tokens.add(new Token(c == '#' ? Token.Kind.NAME_PLACEHOLDER : Token.Kind.VALUE_PLACEHOLDER,
                        text.substring(start, i), start));
            } else if (Character.isLetter(c) || c == '_') {
                while (i < n && isWordChar(text.charAt(i))) {
                    i++;
                }
                tokens.add(new Token(Token.Kind.IDENTIFIER, text.substring(start, i), start));
            } else if (c >= '0' && c <= '9') {
                while (i < n && text.charAt(i) >= '0' && text.charAt(i) <= '9') {
                    i++;
                }
                tokens.add(new Token(Token.Kind.NUMBER, text.substring(start, i), start));
            } else if (c == '<' || c == '>') {
                i++;
                if (i < n && (text.charAt(i) == '=' || (c == '<' && text.charAt(i) == '>'))) {
                    i++;
                }
                tokens.add(new Token(Token.Kind.OPERATOR, text.substring(start, i), start));
            } else if (c == '=' || c == '+' || c == '-') {
                i++;
                tokens.add(new Token(Token.Kind.OPERATOR, String.valueOf(c), start));
            } else {
                Token.Kind single = switch (c) {
                    case '(' -> Token.Kind.LPAREN;
                    case ')' -> Token.Kind.RPAREN;
                    case '[' -> Token.Kind.LBRACKET;
                    case ']' -> Token.Kind.RBRACKET;
                    case ',' -> Token.Kind.COMMA;
                    case '.' -> Token.Kind.DOT;
                    default -> throw kind.illegalCharacter(c, text, start);
                };
                i++;
                tokens.add(new Token(single, String.valueOf(c), start));
            }
        }
        tokens.add(new Token(Token.Kind.END, "<EOF>", n));
        return tokens;
    }

    private static boolean isWordChar(char c) {
        return Character.isLetterOrDigit(c) || c == '_';
    }
}
