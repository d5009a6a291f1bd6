package dev.parley.local.dynamodb.expression;

import dev.parley.local.dynamodb.expression.Token.Kind;
import java.util.ArrayList;
import java.util.List;

/**
 * Recursive-descent parser for DynamoDB's expression grammar. Precedence, lowest first: OR, AND,
 * NOT, then comparisons, BETWEEN, IN and functions; parentheses group. Placeholders are resolved
 * through the request's {@link ExpressionContext} as they are met.
 */
public final class Parser {
    private static final int MAX_IN_OPERANDS = 100;
    /**
     * How deep parentheses and NOTs may nest. The parser descends once per level, so without a bound a request of nested
     * parentheses within DynamoDB's 4 KB would overflow the thread's stack (found by ParserProperties); DynamoDB refuses
     * such expressions as invalid too, and no real expression comes near this.
     */
    static final int MAX_NESTING = 100;
    private int nesting;

    private final String text;
    private final ExpressionKind kind;
    private final ExpressionContext context;
    private final List<Token> tokens;
    private int next;

    private Parser(String text, ExpressionKind kind, ExpressionContext context) {
        this.text = text;
        this.kind = kind;
        this.context = context;
        if (text.isBlank()) {
            throw kind.invalid("The expression can not be empty;");
        }
        this.tokens = Tokenizer.tokenize(text, kind);
    }

    /** A condition, filter or key-condition expression. */
    public static Condition condition(String text, ExpressionKind kind, ExpressionContext context) {
        Parser parser = new Parser(text, kind, context);
        Condition condition = parser.or();
        parser.expect(Kind.END);
        return condition;
    }

    public static UpdateExpression update(String text, ExpressionContext context) {
        Parser parser = new Parser(text, ExpressionKind.UPDATE, context);
        return parser.updateClauses();
    }

    public static List<Path> projection(String text, ExpressionContext context) {
        Parser parser = new Parser(text, ExpressionKind.PROJECTION, context);
        List<Path> paths = new ArrayList<>();
        paths.add(parser.path());
        while (parser.accept(Kind.COMMA)) {
            paths.add(parser.path());
        }
        parser.expect(Kind.END);
        return paths;
    }

    // ---- conditions ------------------------------------------------------------------------------

    private Condition or() {
        Condition left = and();
        while (peek().isKeyword("OR")) {
            next++;
            left = new Condition.Or(left, and());
        }
        return left;
    }

    private Condition and() {
        Condition left = not();
        while (peek().isKeyword("AND")) {
            next++;
            left = new Condition.And(left, not());
        }
        return left;
    }

    private Condition not() {
        if (peek().isKeyword("NOT")) {
            next++;
            deeper();
            Condition negated = new Condition.Not(not());
            nesting--;
            return negated;
        }
        return primary();
    }

    private Condition primary() {
        if (accept(Kind.LPAREN)) {
            deeper();
            Condition inner = or();
            expect(Kind.RPAREN);
            nesting--;
            return inner;
        }
        if (isFunctionCall()) {
            String function = peek().text();
            switch (function) {
                case "attribute_exists" -> {
                    next += 2;
                    Path path = path();
                    expect(Kind.RPAREN);
                    return new Condition.AttributeExists(path);
                }
                case "attribute_not_exists" -> {
                    next += 2;
                    Path path = path();
                    expect(Kind.RPAREN);
                    return new Condition.AttributeNotExists(path);
                }
                case "attribute_type" -> {
                    next += 2;
                    Path path = path();
                    expect(Kind.COMMA);
                    Operand type = operand();
                    expect(Kind.RPAREN);
                    return new Condition.AttributeType(path, type);
                }
                case "begins_with" -> {
                    next += 2;
                    Operand value = operand();
                    expect(Kind.COMMA);
                    Operand prefix = operand();
                    expect(Kind.RPAREN);
                    return new Condition.BeginsWith(value, prefix);
                }
                case "contains" -> {
                    next += 2;
                    Operand value = operand();
                    expect(Kind.COMMA);
                    Operand operand = operand();
                    expect(Kind.RPAREN);
                    return new Condition.Contains(value, operand);
                }
                case "size" -> {
                    // size(path) starts a comparison; handled below as an operand.
                }
                default -> throw unknownFunction(function);
            }
        }
        Operand left = operand();
        Token token = peek();
        if (token.is(Kind.OPERATOR) && Condition.Comparator.of(token.text()) != null) {
            next++;
            return new Condition.Compare(Condition.Comparator.of(token.text()), left, operand());
        }
        if (token.isKeyword("BETWEEN")) {
            next++;
            Operand lower = operand();
            if (!peek().isKeyword("AND")) {
                throw syntaxError(peek());
            }
            next++;
            return new Condition.Between(left, lower, operand());
        }
        if (token.isKeyword("IN")) {
            next++;
            expect(Kind.LPAREN);
            List<Operand> options = new ArrayList<>();
            options.add(operand());
            while (accept(Kind.COMMA)) {
                options.add(operand());
            }
            expect(Kind.RPAREN);
            if (options.size() > MAX_IN_OPERANDS) {
                throw kind.invalid("The IN operator is provided with too many operands; number of operands: " + options.size());
            }
            return new Condition.In(left, options);
        }
        throw syntaxError(token);
    }

    // ---- operands --------------------------------------------------------------------------------

    /** path, :value or size(path) (and in updates, if_not_exists and list_append). */
    private Operand operand() {
        Token token = peek();
        if (token.is(Kind.VALUE_PLACEHOLDER)) {
            next++;
            return new Operand.Value(token.text(), context.value(token.text(), kind));
        }
        if (isFunctionCall()) {
            String function = token.text();
            switch (function) {
                case "size" -> {
                    if (kind == ExpressionKind.UPDATE) {
                        throw kind.invalid("The function is not allowed in an update expression; function: size");
                    }
                    next += 2;
                    Path path = path();
                    expect(Kind.RPAREN);
                    return new Operand.Size(path);
                }
                case "if_not_exists", "list_append" -> {
                    if (kind != ExpressionKind.UPDATE) {
                        throw kind.invalid("The function is not allowed to be used this way in an expression; function: " + function);
                    }
                    next += 2;
                    if (function.equals("if_not_exists")) {
                        Path path = path();
                        expect(Kind.COMMA);
                        Operand fallback = updateValue();
                        expect(Kind.RPAREN);
                        return new Operand.IfNotExists(path, fallback);
                    }
                    Operand first = updateValue();
                    expect(Kind.COMMA);
                    Operand second = updateValue();
                    expect(Kind.RPAREN);
                    return new Operand.ListAppend(first, second);
                }
                case "attribute_exists", "attribute_not_exists", "attribute_type", "begins_with", "contains" ->
                        throw kind.invalid("The function is not allowed to be used this way in an expression; function: " + function);
                default -> throw unknownFunction(function);
            }
        }
        if (token.is(Kind.IDENTIFIER) || token.is(Kind.NAME_PLACEHOLDER)) {
            return new Operand.PathOperand(path());
        }
        throw syntaxError(token);
    }

    private Path path() {
        List<Path.Element> elements = new ArrayList<>();
        elements.add(new Path.Name(nameElement()));
        while (true) {
            if (accept(Kind.DOT)) {
                elements.add(new Path.Name(nameElement()));
            } else if (peek().is(Kind.LBRACKET)) {
                next++;
                Token index = peek();
                if (!index.is(Kind.NUMBER)) {
                    throw syntaxError(index);
                }
                next++;
                int value;
                try {
                    value = Integer.parseInt(index.text());
                } catch (NumberFormatException e) {
                    throw kind.invalid("List index is not within the allowable range; index: " + index.text());
                }
                expect(Kind.RBRACKET);
                elements.add(new Path.Index(value));
            } else {
                return new Path(elements);
            }
        }
    }

    private String nameElement() {
        Token token = peek();
        if (token.is(Kind.NAME_PLACEHOLDER)) {
            next++;
            return context.name(token.text(), kind);
        }
        if (token.is(Kind.IDENTIFIER)) {
            next++;
            if (ReservedWords.contains(token.text())) {
                throw kind.invalid("Attribute name is a reserved keyword; reserved keyword: " + token.text());
            }
            return token.text();
        }
        throw syntaxError(token);
    }

    // ---- updates ---------------------------------------------------------------------------------

    private UpdateExpression updateClauses() {
        List<UpdateExpression.Set> sets = new ArrayList<>();
        List<Path> removes = new ArrayList<>();
        List<UpdateExpression.Add> adds = new ArrayList<>();
        List<UpdateExpression.Delete> deletes = new ArrayList<>();
        java.util.Set<String> seenClauses = new java.util.HashSet<>();
        while (!peek().is(Kind.END)) {
            Token clause = peek();
            String name = clause.kind() == Kind.IDENTIFIER ? clause.text().toUpperCase(java.util.Locale.ROOT) : "";
            if (!List.of("SET", "REMOVE", "ADD", "DELETE").contains(name)) {
                throw syntaxError(clause);
            }
            if (!seenClauses.add(name)) {
                throw kind.invalid("The \"" + name + "\" section can only be used once in an update expression;");
            }
            next++;
            do {
                switch (name) {
                    case "SET" -> {
                        Path path = path();
                        if (!peek().isOperator("=")) {
                            throw syntaxError(peek());
                        }
                        next++;
                        sets.add(new UpdateExpression.Set(path, updateValue()));
                    }
                    case "REMOVE" -> removes.add(path());
                    case "ADD" -> adds.add(new UpdateExpression.Add(path(), valuePlaceholder()));
                    default -> deletes.add(new UpdateExpression.Delete(path(), valuePlaceholder()));
                }
            } while (accept(Kind.COMMA));
        }
        if (seenClauses.isEmpty()) {
            throw syntaxError(peek());
        }
        return new UpdateExpression(sets, removes, adds, deletes);
    }

    /** The right-hand side of SET: an operand, or two joined by + or -. */
    private Operand updateValue() {
        Operand left = operand();
        if (peek().isOperator("+")) {
            next++;
            return new Operand.Plus(left, operand());
        }
        if (peek().isOperator("-")) {
            next++;
            return new Operand.Minus(left, operand());
        }
        return left;
    }

    private Operand.Value valuePlaceholder() {
        Token token = peek();
        if (!token.is(Kind.VALUE_PLACEHOLDER)) {
            throw syntaxError(token);
        }
        next++;
        return new Operand.Value(token.text(), context.value(token.text(), kind));
    }

    // ---- tokens ----------------------------------------------------------------------------------

    private Token peek() {
        return tokens.get(next);
    }

    private boolean isFunctionCall() {
        Token token = peek();
        return token.is(Kind.IDENTIFIER) && tokens.get(next + 1).is(Kind.LPAREN)
                && !(token.isKeyword("NOT") || token.isKeyword("AND") || token.isKeyword("OR") || token.isKeyword("IN")
                        || token.isKeyword("BETWEEN"));
    }

    private boolean accept(Kind expected) {
        if (peek().is(expected)) {
            next++;
            return true;
        }
        return false;
    }

    private void expect(Kind expected) {
        if (!accept(expected)) {
            throw syntaxError(peek());
        }
    }

    private void deeper() {
        if (++nesting > MAX_NESTING) {
            throw kind.invalid("The expression nests parentheses or NOT more than " + MAX_NESTING + " levels deep");
        }
    }

    private RuntimeException syntaxError(Token token) {
        return kind.syntaxError(token.text(), text, token.position());
    }

    private RuntimeException unknownFunction(String function) {
        return kind.invalid("Invalid function name; function: " + function);
    }
}
