package dev.parley.e2e;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.HttpSigner;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;

/**
 * An internal service publishing notifications as the AWS SDK would (the end-to-end tests' and the benchmark's): {@code POST /notifications} signed with SigV4 by the
 * SDK's signer, sent with the JDK's HTTP client. The tests also sign badly on purpose (another key, an old date, one body
 * signed and another sent).
 */
public final class SignedPublisher {
    private final URI url;
    private final String accessKey;
    private final String secretKey;
    private final String region;
    private final HttpClient http = HttpClient.newHttpClient();

    public SignedPublisher(URI url, String accessKey, String secretKey, String region) {
        this.url = url;
        this.accessKey = accessKey;
        this.secretKey = secretKey;
        this.region = region;
    }

    public HttpResponse<String> publish(String body) throws IOException, InterruptedException {
        return send(body, body, Instant.now(), Map.of());
    }

    public HttpResponse<String> publish(String body, Map<String, String> headers) throws IOException, InterruptedException {
        return send(body, body, Instant.now(), headers);
    }

    /** Signs {@code signedBody} at {@code signedAt}, and sends {@code sentBody}. */
    public HttpResponse<String> send(String signedBody, String sentBody, Instant signedAt, Map<String, String> extraHeaders)
            throws IOException, InterruptedException {
        return send(SdkHttpMethod.POST, url, signedBody, sentBody, signedAt, extraHeaders);
    }

    /** A signed call of another route of the same API ({@code PUT /topics/{key}/subscribers}): {@code path} from the API's root. */
    public HttpResponse<String> call(String method, String path, String body) throws IOException, InterruptedException {
        return send(SdkHttpMethod.fromValue(method), url.resolve(path), body, body, Instant.now(), Map.of());
    }

    private HttpResponse<String> send(SdkHttpMethod method, URI target, String signedBody, String sentBody, Instant signedAt,
                                      Map<String, String> extraHeaders) throws IOException, InterruptedException {
        SdkHttpRequest.Builder unsigned = SdkHttpRequest.builder().method(method).uri(target).putHeader("Content-Type", "application/json");
        extraHeaders.forEach(unsigned::putHeader);
        var signed = AwsV4HttpSigner.create().sign(r -> r.identity(AwsCredentialsIdentity.create(accessKey, secretKey)).request(unsigned.build())
                .payload(ContentStreamProvider.fromUtf8String(signedBody))
                .putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, "execute-api")
                .putProperty(AwsV4HttpSigner.REGION_NAME, region)
                .putProperty(HttpSigner.SIGNING_CLOCK, Clock.fixed(signedAt, ZoneOffset.UTC)));
        HttpRequest.Builder request = HttpRequest.newBuilder(target).method(method.name(), HttpRequest.BodyPublishers.ofString(sentBody, StandardCharsets.UTF_8));
        signed.request().forEachHeader((name, values) -> {
            // The JDK's client sets Host itself, from the URL, as the signer did.
            if (!name.equalsIgnoreCase("Host")) {
                values.forEach(value -> request.header(name, value));
            }
        });
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** An unsigned request, as a caller without credentials sends it. */
    public HttpResponse<String> unsigned(String body) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(url).header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    public static String body(List<String> recipients, String category, String title, Optional<String> groupKey, Optional<String> actor) {
        StringBuilder json = new StringBuilder("{\"recipients\":[");
        json.append(String.join(",", recipients.stream().map(r -> "\"" + r + "\"").toList())).append("],\"category\":\"").append(category)
                .append("\",\"content\":{\"title\":\"").append(title).append("\",\"body\":\"tap to see\",\"data\":{\"post\":\"p-1\"}}");
        groupKey.ifPresent(key -> json.append(",\"group_key\":\"").append(key).append('"'));
        actor.ifPresent(a -> json.append(",\"actor\":\"").append(a).append('"'));
        return json.append('}').toString();
    }
}
