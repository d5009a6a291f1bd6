package dev.parley.local.sns;

/** An SNS error as the Query protocol carries it: HTTP status, Sender or Receiver, a code the SDK maps to its exception class. */
final class SnsError extends RuntimeException {
    final int status;
    final String code;

    SnsError(int status, String code, String message) {
        super(message, null, false, false);
        this.status = status;
        this.code = code;
    }

    static SnsError invalidParameter(String message) {
        return new SnsError(400, "InvalidParameter", "Invalid parameter: " + message);
    }

    static SnsError notFound(String message) {
        return new SnsError(404, "NotFound", message);
    }

    static SnsError endpointDisabled() {
        return new SnsError(400, "EndpointDisabled", "Endpoint is disabled");
    }

    static SnsError platformApplicationDisabled() {
        return new SnsError(400, "PlatformApplicationDisabled", "Platform application is disabled");
    }
}
