package dev.parley.client;

import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.UUID;

/**
 * An HTML form posted as {@code multipart/form-data} (RFC 7578): the fields in their order, then the file, last, as S3's POST
 * upload requires (fields after the file are ignored). What a media upload grant's form is posted with.
 */
public final class MultipartForm {
    private MultipartForm() {
    }

    /** The POST of {@code fields} and then {@code file} (named {@code file}) to {@code url}. */
    public static HttpRequest post(URI url, Map<String, String> fields, String fileContentType, byte[] file) {
        String boundary = "parley-" + UUID.randomUUID();
        ByteArrayOutputStream body = new ByteArrayOutputStream(file.length + 4096);
        fields.forEach((name, value) -> write(body, "--" + boundary + "\r\nContent-Disposition: form-data; name=\"" + name + "\"\r\n\r\n"
                + value + "\r\n"));
        write(body, "--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"media\"\r\nContent-Type: "
                + fileContentType + "\r\n\r\n");
        body.writeBytes(file);
        write(body, "\r\n--" + boundary + "--\r\n");
        return HttpRequest.newBuilder(url).header("Content-Type", "multipart/form-data; boundary=" + boundary)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body.toByteArray())).build();
    }

    private static void write(ByteArrayOutputStream body, String text) {
        body.writeBytes(text.getBytes(StandardCharsets.UTF_8));
    }
}
