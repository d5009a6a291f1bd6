package dev.parley.protocol;

import dev.parley.model.InvalidFieldException;
import dev.parley.model.RequestId;
import java.util.regex.Pattern;

/**
 * The rules for a request's {@code id} (protocol 1.1): any client frame may carry one, and every answer to it carries it back
 * as {@code ref}. 1 to 64 characters of {@code A-Z a-z 0-9 . _ : -}; on a frame that changes state it is a UUID, the
 * frame's idempotency key, so that two requests of one client cannot share it by accident.
 */
public final class RequestRefs {
    public static final int MAX_LENGTH = 64;
    private static final Pattern ALLOWED = Pattern.compile("[A-Za-z0-9._:-]{1," + MAX_LENGTH + "}");

    private RequestRefs() {
    }

    /** The id, if {@code frame} may carry it; else an {@link InvalidFieldException} naming {@code id}. */
    public static String check(String id, ClientFrame frame) {
        if (!ALLOWED.matcher(id).matches()) {
            throw new InvalidFieldException("id", "must be 1 to " + MAX_LENGTH + " characters of A-Z a-z 0-9 . _ : -");
        }
        if (frame.effect().changesState()) {
            try {
                RequestId.parse(id);
            } catch (IllegalArgumentException notUuid) {
                throw new InvalidFieldException("id", notUuid.getMessage() + " on " + frame.type()
                        + ", which changes state: the id is its idempotency key");
            }
        }
        return id;
    }
}
