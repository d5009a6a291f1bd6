package dev.parley.model;

/**
 * A value that is missing, of the wrong type or out of range. {@link #field()} is the wire name
 * of the field at fault, with a path for nested fields ({@code content.body}, {@code members[3]}).
 */
public final class InvalidFieldException extends DomainException {
    private final String field;
    private final String problem;

    public InvalidFieldException(String field, String problem) {
        super(ErrorCode.BAD_REQUEST, "field '" + field + "' " + problem);
        this.field = field;
        this.problem = problem;
    }

    public String field() {
        return field;
    }

    public String problem() {
        return problem;
    }

    /** The same problem, seen from an enclosing object: {@code body} inside {@code content} becomes {@code content.body}. */
    public InvalidFieldException under(String parentField) {
        return new InvalidFieldException(parentField + "." + field, problem);
    }
}
