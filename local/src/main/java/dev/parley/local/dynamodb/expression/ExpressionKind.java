package dev.parley.local.dynamodb.expression;

import dev.parley.local.dynamodb.DynamoDbError;

/** Which parameter an expression came in; DynamoDB's messages start with its name. */
public enum ExpressionKind {
    CONDITION("ConditionExpression"),
    FILTER("FilterExpression"),
    KEY_CONDITION("KeyConditionExpression"),
    UPDATE("UpdateExpression"),
    PROJECTION("ProjectionExpression");

    private final String parameter;

    ExpressionKind(String parameter) {
        this.parameter = parameter;
    }

    public String parameter() {
        return parameter;
    }

    public DynamoDbError invalid(String detail) {
        return DynamoDbError.validation("Invalid " + parameter + ": " + detail);
    }

    DynamoDbError syntaxError(String token, String text, int position) {
        return invalid("Syntax error; token: \"" + token + "\", near: \"" + near(text, position) + "\"");
    }

    DynamoDbError illegalCharacter(char c, String text, int position) {
        return invalid("Invalid character in expression; character: " + c + ", near: \"" + near(text, position) + "\"");
    }

    private static String near(String text, int position) {
        int from = Math.max(0, position - 10);
        int to = Math.min(text.length(), position + 10);
        return text.substring(from, to).strip();
    }
}
