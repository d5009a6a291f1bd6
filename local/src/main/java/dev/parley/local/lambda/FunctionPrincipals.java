package dev.parley.local.lambda;

import dev.parley.functions.manifest.FunctionSpec;
import dev.parley.functions.manifest.Manifest;
import dev.parley.local.dynamodb.AccessPolicy;
import dev.parley.local.dynamodb.engine.Database;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The identity each function calls AWS with in the local cloud, standing in for its execution role:
 * the local cloud gives function {@code f} the access key id {@code fn-f}, and this policy lets that
 * principal do exactly what the CDK stack's IAM grants it, from the same manifest: the table
 * operations its {@link FunctionSpec.TableAccess} names, and posting to connections only if it
 * manages connections (and never reading or closing them). Any other principal (a developer, a test, the stream mapping's poller) may
 * do anything.
 */
public final class FunctionPrincipals implements AccessPolicy {
    private static final String PREFIX = "fn-";
    private final Map<String, FunctionSpec> byPrincipal = new HashMap<>();

    public FunctionPrincipals(Manifest manifest) {
        manifest.functions().forEach(function -> byPrincipal.put(accessKeyId(function.name()), function));
    }

    /** The access key id function {@code name} signs its AWS requests with, locally. */
    public static String accessKeyId(String name) {
        return PREFIX + name;
    }

    @Override
    public Optional<String> denial(String principal, String operation, List<String> tables) {
        FunctionSpec function = byPrincipal.get(principal);
        if (function == null) {
            return Optional.empty();
        }
        if (tables.isEmpty()) {
            return Optional.of(notAuthorized(function, "dynamodb:" + operation, Database.tableArn("*")));
        }
        for (String table : tables) {
            FunctionSpec.TableAccess access = function.tables().get(table);
            if (access == null || !access.operations().contains(operation)) {
                return Optional.of(notAuthorized(function, "dynamodb:" + operation, Database.tableArn(table)));
            }
        }
        return Optional.empty();
    }

    /**
     * Why {@code principal} may not call {@code method} on a connection ({@code resource} is its ARN);
     * empty if it may: a function may only if it manages connections and the method is one of
     * {@link FunctionSpec#CONNECTION_METHODS}, the ones the stack grants.
     */
    public Optional<String> manageConnectionsDenial(String principal, String method, String resource) {
        FunctionSpec function = byPrincipal.get(principal);
        return function == null || function.managesConnections() && FunctionSpec.CONNECTION_METHODS.contains(method) ? Optional.empty()
                : Optional.of(notAuthorized(function, "execute-api:ManageConnections", resource));
    }

    /** IAM's wording, so the error reads as it would on AWS. */
    private static String notAuthorized(FunctionSpec function, String action, String resource) {
        return "User: arn:aws:sts::000000000000:assumed-role/parley-" + function.name() + "/" + function.name()
                + " is not authorized to perform: " + action + " on resource: " + resource
                + " because no identity-based policy allows the " + action + " action";
    }
}
