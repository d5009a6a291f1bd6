package dev.parley.functions.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.parley.functions.retry.RetriesExhaustedException;
import dev.parley.model.DomainException;
import dev.parley.model.ErrorCode;
import dev.parley.ports.UnavailableException;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.apigatewaymanagementapi.model.LimitExceededException;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.InternalServerErrorException;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughputExceededException;
import software.amazon.awssdk.services.dynamodb.model.RequestLimitExceededException;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.ThrottlingException;

/** How the SDK's failures reach the ports: nothing of AWS's crosses. */
class SdkErrorsTest {

    private static Throwable caught(RuntimeException failure) {
        try {
            SdkErrors.translating("storing a message", () -> {
                throw failure;
            });
        } catch (RuntimeException e) {
            return e;
        }
        throw new AssertionError("nothing was thrown");
    }

    private static <T extends DynamoDbException.Builder> DynamoDbException service(T builder, String code, int status) {
        return (DynamoDbException) builder.awsErrorDetails(AwsErrorDetails.builder().errorCode(code).errorMessage(code).build())
                .statusCode(status).message(code).build();
    }

    @Test
    void throttlingIsUnavailableWithAShortWait() {
        for (RuntimeException throttled : new RuntimeException[] {
                service(ProvisionedThroughputExceededException.builder(), "ProvisionedThroughputExceededException", 400),
                service(RequestLimitExceededException.builder(), "RequestLimitExceeded", 400),
                service(ThrottlingException.builder(), "ThrottlingException", 400),
                ProvisionedThroughputExceededException.builder().message("no error details, as a hand-made one has none").build(),
                LimitExceededException.builder().statusCode(429).message("slow down").build()}) {
            assertThat(caught(throttled)).as(throttled.getClass().getSimpleName()).isInstanceOfSatisfying(UnavailableException.class, e -> {
                assertThat(e.retryAfter()).isEqualTo(SdkErrors.THROTTLED_RETRY_AFTER);
                assertThat(e.getMessage()).isEqualTo("storing a message was throttled");
            });
        }
    }

    @Test
    void failuresTheSdkAlreadyRetriedAreUnavailableWithALongerWait() {
        for (RuntimeException failing : new RuntimeException[] {
                service(InternalServerErrorException.builder(), "InternalServerError", 500),
                ApiCallTimeoutException.create(2_000),
                SdkClientException.builder().message("Unable to execute HTTP request").cause(new java.net.SocketException("Connection reset")).build()}) {
            assertThat(caught(failing)).as(failing.getClass().getSimpleName()).isInstanceOfSatisfying(UnavailableException.class,
                    e -> assertThat(e.retryAfter()).isEqualTo(SdkErrors.FAILING_RETRY_AFTER));
        }
        assertThat(caught(new RetriesExhaustedException("DynamoDB left 3 keys unprocessed"))).isInstanceOfSatisfying(UnavailableException.class,
                e -> assertThat(e.retryAfter()).isEqualTo(Duration.ofMillis(250)));
    }

    @Test
    void aRefusedRequestOrABrokenDeploymentIsAFaultNamingTheOperationAndNoAwsType() {
        for (RuntimeException fault : new RuntimeException[] {
                service(ResourceNotFoundException.builder(), "ResourceNotFoundException", 400),
                SdkClientException.create("Unable to load credentials from any of the providers in the chain")}) {
            assertThat(caught(fault)).as(fault.getMessage()).isExactlyInstanceOf(IllegalStateException.class)
                    .hasMessageStartingWith("storing a message was refused");
        }
    }

    @Test
    void domainRefusalsPassUnchanged() {
        DomainException forbidden = new DomainException(ErrorCode.FORBIDDEN, "not a member");
        assertThat(caught(forbidden)).isSameAs(forbidden);
        IllegalArgumentException bug = new IllegalArgumentException("bug");
        assertThat(caught(bug)).isSameAs(bug);
    }
}
