package dev.parley.infra;

import io.github.cdklabs.cdknag.NagPackSuppression;
import io.github.cdklabs.cdknag.NagSuppressions;
import io.github.cdklabs.cdknag.RegexAppliesTo;
import java.util.Collection;
import java.util.List;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.Token;
import software.amazon.awscdk.services.apigatewayv2.WebSocketApi;
import software.amazon.awscdk.services.apigatewayv2.WebSocketStage;
import software.amazon.awscdk.services.secretsmanager.Secret;
import software.amazon.awscdk.services.sqs.Queue;

/**
 * The AwsSolutions findings Parley answers with a reason instead of a change, each on the resource or the exact grant it
 * concerns, so that the same rule still fires anywhere else; two are stack-wide: L1 (every function is java21 on purpose) and
 * the grants on {@code Resource::*} (AWS allows no other; ParleyStackTest bounds which actions may have them). docs/security.md lists them. Everything else the pack finds is
 * fixed in the stack; {@code StackSecurityTest} fails on any finding left unanswered.
 */
final class AcceptedFindings {
    private AcceptedFindings() {
    }

    static void answer(Stack stack, WebSocketApi api, WebSocketStage stage, boolean webSocketAccessLogs, Secret jwtSecret,
                       Collection<Queue> onFailureQueues, Collection<software.amazon.awscdk.services.s3.Bucket> buckets) {
        for (var bucket : buckets) {
            NagSuppressions.addResourceSuppressions(bucket, List.of(suppression("AwsSolutions-S1",
                    "Server access logs would log every media GET and POST to a second bucket, at a cost per request, for objects that are "
                            + "private, random-named and reached only through grants the functions sign and log; CloudTrail data events "
                            + "can be turned on for the bucket where an audit needs them (docs/deploy.md)")), true);
        }
        NagSuppressions.addResourceSuppressions(api, List.of(suppression("AwsSolutions-APIG4",
                "API Gateway runs a WebSocket API's authorizer on $connect alone: every later frame of the connection carries the "
                        + "identity the authorizer gave it, and each function checks membership for the conversation it touches")), true);
        if (!webSocketAccessLogs) {
            NagSuppressions.addResourceSuppressions(stage, List.of(suppression("AwsSolutions-APIG1",
                    "WebSocket access logs need the account's API Gateway CloudWatch Logs role, which a stack should not set for the "
                            + "whole account: turned on with -c parley:webSocketAccessLogs=true once the role is set (docs/deploy.md); "
                            + "the functions log every connect, frame and disconnect with its connection id meanwhile")), true);
        }
        NagSuppressions.addResourceSuppressions(jwtSecret, List.of(suppression("AwsSolutions-SMG4",
                "The token key is shared with the deployer's token issuer, which Secrets Manager cannot update: a rotation is "
                        + "coordinated by hand (put-secret-value, wait 5 minutes, switch the issuer; docs/deploy.md), and the "
                        + "authorizer accepts the current and previous versions so that it needs no downtime")), true);
        for (Queue queue : onFailureQueues) {
            NagSuppressions.addResourceSuppressions(queue, List.of(suppression("AwsSolutions-SQS3",
                    "This queue is itself a dead-letter queue: the on-failure destination of a stream mapping, where the records "
                            + "it gave up on wait, alarmed, for an operator")), true);
        }
        NagSuppressions.addStackSuppressions(stack, List.of(
                suppression("AwsSolutions-L1", "Parley's functions run on java21 on purpose: the project builds with --release 21 "
                        + "and SnapStart, and a newer Java runtime is a deliberate upgrade with its own benchmarks; the CDK's own "
                        + "custom-resource provider (push applications) runs the Node.js runtime its CDK version chooses"),
                NagPackSuppression.builder().id("AwsSolutions-IAM5")
                        .reason("Connection ids are known only at run time: a function that posts to or closes connections is granted "
                                + "its methods on its own API's stage's @connections/*, nothing wider")
                        .appliesTo(List.of(RegexAppliesTo.builder()
                                .regex("/^Resource::" + arnPrefix(stack, "execute-api") + ":<WebSocketApi[0-9A-F]+>/"
                                        + "[^/*]+/(POST|GET|DELETE)/@connections/\\*$/").build()))
                        .build(),
                NagPackSuppression.builder().id("AwsSolutions-IAM5")
                        .reason("Push endpoints are created at run time, one a device: the functions that register devices, push and "
                                + "retire dead tokens are granted the endpoints of the stack's own platform applications, nothing wider")
                        .appliesTo(List.of(RegexAppliesTo.builder()
                                .regex("/^Resource::" + arnPrefix(stack, "sns") + ":endpoint/(GCM|APNS|APNS_SANDBOX)/"
                                        + stack.getStackName() + "-(fcm|apns|apnssandbox)/\\*$/").build()))
                        .build(),
                NagPackSuppression.builder().id("AwsSolutions-IAM5")
                        .reason("Media objects are named at run time by random ids: the frame functions are granted PutObject and GetObject "
                                + "on the media bucket's m/ prefix, nothing else of it")
                        .appliesTo(List.of(RegexAppliesTo.builder().regex("/^Resource::<Bucketparleymedia[0-9A-F]+\\.Arn>\\/m\\/\\*$/").build()))
                        .build(),
                NagPackSuppression.builder().id("AwsSolutions-IAM5")
                        .reason("dynamodb:ListStreams and SNS's platform-application actions have no resource-level permissions: AWS "
                                + "accepts only * for them (ParleyStackTest checks that no other action is granted on *)")
                        .appliesTo(List.of("Resource::*")).build()));
    }

    /**
     * The CDK's custom-resource provider (one function for the stack, made by the first {@code AwsCustomResource}: the push
     * platform applications), when there is one.
     */
    static void answerCustomResourceProvider(software.constructs.IConstruct provider) {
        NagSuppressions.addResourceSuppressions(provider, List.of(NagPackSuppression.builder().id("AwsSolutions-IAM4")
                .reason("The CDK's custom-resource provider that creates the SNS platform applications runs with "
                        + "AWSLambdaBasicExecutionRole, which lets it write its own logs and nothing else")
                .appliesTo(List.of("Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole")).build()), true);
    }

    /**
     * A regex for the start of an ARN of the stack's own partition, region and account, as cdk-nag prints it: each part is
     * {@code <AWS::Partition>} and the like while the stack's environment leaves it unresolved, and the literal the CLI resolved
     * from the deployer's profile otherwise ({@code arn:aws-cn:sns:cn-north-1:123456789012}), which is how {@code cdk deploy}
     * synthesizes.
     */
    static String arnPrefix(Stack stack, String service) {
        return "arn:" + part(stack.getPartition(), "<AWS::Partition>") + ":" + service + ":" + part(stack.getRegion(), "<AWS::Region>") + ":"
                + part(stack.getAccount(), "<AWS::AccountId>");
    }

    private static String part(String value, String reference) {
        // cdk-nag's regexes are JavaScript's, which know no \Q...\E: each character that is not a letter, digit or '-' is escaped.
        return Token.isUnresolved(value) ? reference : value.replaceAll("[^A-Za-z0-9-]", "\\\\$0");
    }

    private static NagPackSuppression suppression(String rule, String reason) {
        return NagPackSuppression.builder().id(rule).reason(reason).build();
    }
}
