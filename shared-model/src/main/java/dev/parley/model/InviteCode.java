package dev.parley.model;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.regex.Pattern;

/**
 * A group's invite code: 160 random bits (the contract asks for at least 120), in URL-safe base64 without padding, so that it
 * fits a link and nobody guesses one. Whoever holds it may join while it runs; the server keeps only its SHA-256.
 */
public record InviteCode(String value) {
    public static final int RANDOM_BYTES = 20;
    private static final Pattern SHAPE = Pattern.compile("[A-Za-z0-9_-]{27}");
    private static final SecureRandom RANDOM = new SecureRandom();

    public InviteCode {
        if (value == null || !SHAPE.matcher(value).matches()) {
            throw new InvalidFieldException("code", "must be an invite code from a conversation.invite (27 URL-safe base64 characters)");
        }
    }

    public static InviteCode of(String value) {
        return new InviteCode(value);
    }

    public static InviteCode random() {
        byte[] bytes = new byte[RANDOM_BYTES];
        RANDOM.nextBytes(bytes);
        return new InviteCode(Base64.getUrlEncoder().withoutPadding().encodeToString(bytes));
    }

    /** What the server stores and looks the code up by: never the code itself, so a read of the table admits nobody. */
    public String digest() {
        return Sha256.hex(value);
    }

    @Override
    public String toString() {
        // Codes are capabilities: logs and error messages show their digest's start only.
        return "invite " + digest().substring(0, 12);
    }
}
