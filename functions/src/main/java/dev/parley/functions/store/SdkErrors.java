package dev.parley.functions.store;

import dev.parley.functions.retry.RetriesExhaustedException;
import dev.parley.ports.UnavailableException;
import java.io.IOException;
import java.time.Duration;
import java.util.function.Supplier;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.exception.SdkServiceException;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughputExceededException;
import software.amazon.awssdk.services.dynamodb.model.RequestLimitExceededException;
import software.amazon.awssdk.services.dynamodb.model.ThrottlingException;

/**
 * Where the adapters (DynamoDB, the Management API) turn the AWS SDK's exceptions into the ports'
 * terms, so that no AWS type crosses a port. What may pass if tried again later (throttling, a server
 * error or timeout that outlasted the SDK's retries, a batch left unprocessed after ours) becomes
 * {@link UnavailableException} with a wait to advise; anything else is a fault of the request or the
 * deployment (a validation error, a missing table or permission) and becomes an
 * {@link IllegalStateException} naming the operation.
 */
public final class SdkErrors {
    /**
     * How long a throttled caller is asked to wait: long enough that its retry lands after the
     * burst that was throttled (a partition's capacity is counted per second), short enough that a
     * person sending a message does not notice.
     */
    public static final Duration THROTTLED_RETRY_AFTER = Duration.ofMillis(250);
    /** How long to wait after failures the SDK already retried for about two seconds. */
    public static final Duration FAILING_RETRY_AFTER = Duration.ofSeconds(1);

    private SdkErrors() {
    }

    /** Runs one port operation, translating what the SDK throws; domain exceptions pass unchanged. */
    public static <T> T translating(String operation, Supplier<T> call) {
        try {
            return call.get();
        } catch (SdkException e) {
            throw translate(operation, e);
        } catch (RetriesExhaustedException e) {
            throw new UnavailableException(operation + ": " + e.getMessage(), THROTTLED_RETRY_AFTER, e);
        }
    }

    public static void translating(String operation, Runnable call) {
        translating(operation, () -> {
            call.run();
            return null;
        });
    }

    public static RuntimeException translate(String operation, SdkException e) {
        if (isThrottling(e)) {
            return new UnavailableException(operation + " was throttled", THROTTLED_RETRY_AFTER, e);
        }
        if (isPassing(e)) {
            return new UnavailableException(operation + " failed: " + e.getMessage(), FAILING_RETRY_AFTER, e);
        }
        return new IllegalStateException(operation + " was refused: " + e.getMessage(), e);
    }

    /**
     * Throttling: DynamoDB's ProvisionedThroughputExceeded, RequestLimitExceeded and ThrottlingException
     * (by type, and by error code as the SDK classifies them), any 429.
     */
    public static boolean isThrottling(SdkException e) {
        return e instanceof ProvisionedThroughputExceededException || e instanceof RequestLimitExceededException
                || e instanceof ThrottlingException
                || e instanceof SdkServiceException service && (service.isThrottlingException() || service.statusCode() == 429);
    }

    /**
     * A failure that may pass: a call or attempt that timed out, a 5xx, or a client-side failure the SDK
     * itself calls retryable (a connection reset, an I/O error). Missing credentials, a bad endpoint or an
     * unreadable answer are faults of the deployment, not of the moment.
     */
    private static boolean isPassing(SdkException e) {
        if (e instanceof ApiCallTimeoutException || e instanceof ApiCallAttemptTimeoutException) {
            return true;
        }
        if (e instanceof SdkServiceException service) {
            return service.statusCode() >= 500;
        }
        return e.retryable() || e.getCause() instanceof IOException;
    }
}
