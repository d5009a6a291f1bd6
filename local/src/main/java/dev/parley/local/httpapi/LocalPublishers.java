package dev.parley.local.httpapi;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.functions.config.PublishSettings;
import dev.parley.local.dynamodb.server.Json;
import dev.parley.ports.RateLimits;

/**
 * The local cloud's publisher key: what a tester signs {@code POST /notifications} with (the AWS CLI, {@code curl --aws-sigv4},
 * any SDK). Like the development token secret, it exists only in the local cloud; a deployed stack's publishers are IAM
 * principals it names ({@code parley:publishers}).
 */
public final class LocalPublishers {
    public static final String ACCESS_KEY_ID = "PARLEYLOCALPUBLISHER";
    public static final String SECRET_ACCESS_KEY = "parley-local-publisher-secret";
    public static final String PRINCIPAL = "arn:aws:iam::" + HttpApiGateway.ACCOUNT + ":role/parley-local-publisher";
    public static final String REGION = "us-east-1";
    public static final SigV4Verifier.PublisherKey KEY = new SigV4Verifier.PublisherKey(ACCESS_KEY_ID, SECRET_ACCESS_KEY, PRINCIPAL);

    private LocalPublishers() {
    }

    /**
     * The publish and topics functions' publishers: the local key's principal, allowed every category the function knows and
     * every topic, at this limit.
     */
    public static String publishers(String categoriesJson, RateLimits.Limit limit) {
        ObjectNode publishers = Json.NODES.objectNode();
        ObjectNode local = publishers.putObject(PRINCIPAL);
        ArrayNode allowed = local.putArray("categories");
        PublishSettings.parse(categoriesJson, "{}").categories().keySet().forEach(allowed::add);
        local.put("per_second", limit.perSecond());
        local.put("burst", limit.burst());
        local.putArray("topics").add("*");
        return publishers.toString();
    }
}
