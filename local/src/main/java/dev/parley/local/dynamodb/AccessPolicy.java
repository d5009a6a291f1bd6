package dev.parley.local.dynamodb;

import java.util.List;
import java.util.Optional;

/**
 * The local stand-in for IAM: whether the principal a request is signed as (its access key id) may
 * run an operation on the tables it names. The emulator answers a denial with AccessDeniedException
 * and runs nothing. By default everything is allowed, as for a developer's own credentials.
 */
@FunctionalInterface
public interface AccessPolicy {
    AccessPolicy ALLOW_ALL = (principal, operation, tables) -> Optional.empty();

    /** Why {@code principal} may not run {@code operation} on {@code tables}, as IAM would word it; empty if it may. */
    Optional<String> denial(String principal, String operation, List<String> tables);

    /** The access key id a SigV4 Authorization header is signed with, or "" for an unsigned request. */
    static String principalOf(String authorization) {
        if (authorization == null) {
            return "";
        }
        int credential = authorization.indexOf("Credential=");
        if (credential < 0) {
            return "";
        }
        int start = credential + "Credential=".length();
        int end = authorization.indexOf('/', start);
        return end < 0 ? "" : authorization.substring(start, end);
    }

    /** The header a request made with temporary credentials carries its session token in. */
    String SESSION_TOKEN_HEADER = dev.parley.functions.config.AwsClients.SESSION_TOKEN_HEADER;

    /** The session a request was made in (its security token), or "" for none. */
    static String sessionOf(String securityToken) {
        return securityToken == null ? "" : securityToken;
    }
}
