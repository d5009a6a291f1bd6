package dev.parley.local;

import java.io.PrintStream;
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

    private final PrintStream out;

    public LocalCloud(PrintStream out) {
        this.out = out;
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new LocalCloud(System.out)).execute(args));
    }

    /** What the local cloud is made of, in start order; parts not built yet say which work brings them. */
    static List<ComponentReport> startComponents() {
        return List.of(
                ComponentReport.notAvailable("DynamoDB + Streams emulator",
                        "not built yet (local cloud, part 1)"),
                ComponentReport.notAvailable("API Gateway WebSocket + Management API",
                        "not built yet (local cloud, part 2)"),
                ComponentReport.notAvailable("Lambda runtime + stream event source mappings",
                        "not built yet (local cloud, part 2)"),
                ComponentReport.notAvailable("SNS mobile push emulator",
                        "not built yet (local cloud, part 2)"),
                ComponentReport.notAvailable("Parley functions",
                        "not built yet (messaging core)"));
    }

    @Override
    public Integer call() throws InterruptedException {
        List<ComponentReport> reports = startComponents();
        out.println("Parley local cloud");
        for (ComponentReport report : reports) {
            String mark = report.state() == ComponentReport.State.RUNNING ? "running      " : "not available";
            out.printf("  %-48s %s  %s%n", report.name(), mark, report.detail());
        }
        long running = reports.stream().filter(r -> r.state() == ComponentReport.State.RUNNING).count();
        if (running == 0) {
            out.println("Nothing is running: no part of the local cloud exists yet. Exiting.");
            return 0;
        }
        if (exitAfterStart) {
            out.println("Started " + running + " of " + reports.size() + " parts; stopping (--exit-after-start).");
            return 0;
        }
        out.println("Started " + running + " of " + reports.size() + " parts. Press Ctrl-C to stop.");
        new CountDownLatch(1).await();
        return 0;
    }
}
