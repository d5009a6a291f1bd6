package dev.parley.local;

import dev.parley.local.dynamodb.DynamoDbEmulator;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The launcher behind {@code scripts/run-local}: starts every part of the local cloud that exists,
 * prints what runs where and what does not exist yet, and keeps running until interrupted.
 */
@Command(name = "run-local", mixinStandardHelpOptions = true,
        description = "Starts Parley's local cloud and prints what it started.")
public final class LocalCloud implements Callable<Integer> {

    @Option(names = "--exit-after-start",
            description = "Start everything, print the report, then stop and exit (a smoke check).")
    boolean exitAfterStart;

    @Option(names = "--host", defaultValue = "127.0.0.1",
            description = "The address to listen on (default: ${DEFAULT-VALUE}; 0.0.0.0 for every interface).")
    String host;

    @Option(names = "--dynamodb-port", defaultValue = "8000",
            description = "Port of the DynamoDB and DynamoDB Streams endpoint (default: ${DEFAULT-VALUE}; 0 picks a free one).")
    int dynamoDbPort;

    @Option(names = "--data-dir",
            description = "Keep DynamoDB tables, items and streams in this directory across restarts (default: in memory only).")
    java.nio.file.Path dataDirectory;

    private final PrintStream out;
    private final List<AutoCloseable> running = new ArrayList<>();

    public LocalCloud(PrintStream out) {
        this.out = out;
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new LocalCloud(System.out)).execute(args));
    }

    /** Starts each part of the local cloud that exists, in order; the parts not built yet say which work brings them. */
    List<ComponentReport> startComponents() {
        List<ComponentReport> reports = new ArrayList<>();
        DynamoDbEmulator.Builder builder = DynamoDbEmulator.builder().host(host).port(dynamoDbPort);
        if (dataDirectory != null) {
            builder.dataDirectory(dataDirectory);
        }
        DynamoDbEmulator dynamoDb = builder.start();
        running.add(dynamoDb);
        reports.add(ComponentReport.running("DynamoDB + Streams emulator", dynamoDb.endpoint()
                + "  (" + (dataDirectory == null ? "in memory" : "data in " + dataDirectory.toAbsolutePath())
                + "; admin: " + dynamoDb.endpoint() + "/_parley/)"));
        reports.add(ComponentReport.notAvailable("API Gateway WebSocket + Management API", "not built yet (local cloud, part 2)"));
        reports.add(ComponentReport.notAvailable("Lambda runtime + stream event source mappings", "not built yet (local cloud, part 2)"));
        reports.add(ComponentReport.notAvailable("SNS mobile push emulator", "not built yet (local cloud, part 2)"));
        reports.add(ComponentReport.notAvailable("Parley functions", "not built yet (messaging core)"));
        return reports;
    }

    void stopComponents() {
        for (AutoCloseable component : running.reversed()) {
            try {
                component.close();
            } catch (Exception e) {
                out.println("stopping a component failed: " + e);
            }
        }
        running.clear();
    }

    @Override
    public Integer call() throws InterruptedException {
        List<ComponentReport> reports = startComponents();
        Runtime.getRuntime().addShutdownHook(new Thread(this::stopComponents, "local-cloud-shutdown"));
        out.println("Parley local cloud");
        for (ComponentReport report : reports) {
            String mark = report.state() == ComponentReport.State.RUNNING ? "running      " : "not available";
            out.printf("  %-48s %s  %s%n", report.name(), mark, report.detail());
        }
        long started = reports.stream().filter(r -> r.state() == ComponentReport.State.RUNNING).count();
        if (exitAfterStart) {
            out.println("Started " + started + " of " + reports.size() + " parts; stopping (--exit-after-start).");
            stopComponents();
            return 0;
        }
        out.println("Started " + started + " of " + reports.size() + " parts. Press Ctrl-C to stop.");
        new CountDownLatch(1).await();
        return 0;
    }
}
