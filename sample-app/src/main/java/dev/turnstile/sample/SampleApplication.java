package dev.turnstile.sample;

import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.Banner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * The marketplace of Redis in Action, chapter 6.2, on Turnstile. {@code --help} prints the
 * commands; the command line is checked ({@link CommandLine}) before anything starts, and a wrong
 * option is one line on standard error naming it, with exit status 2.
 *
 * <pre>
 * java -jar sample-app.jar                  the web app on :8080 (see README for the endpoints)
 * java -jar sample-app.jar --benchmark      the book's Table 6.3, measured (--duration=10s per row)
 * java -jar sample-app.jar --lab            the book's five lock stages against their faults
 * java -jar sample-app.jar --help           the commands and their options
 * </pre>
 */
@SpringBootApplication
@EnableScheduling
public class SampleApplication {

    /** Exit status of a command line that cannot run. */
    static final int USAGE_ERROR = 2;

    public static void main(String[] args) {
        CommandLine.Parsed command;
        try {
            command = CommandLine.parse(args);
        } catch (CommandLine.UsageException e) {
            System.err.println("sample-app: " + e.getMessage());
            System.exit(USAGE_ERROR);
            return;
        }
        if (command.mode() == CommandLine.Mode.HELP) {
            System.out.println(CommandLine.USAGE);
            return;
        }
        SpringApplication application = new SpringApplication(SampleApplication.class);
        if (command.mode() == CommandLine.Mode.WEB) {
            application.run(args);
            return;
        }
        // The benchmark and the lab flush and break Redis: they get a redis-server of their own,
        // which is not restarted if it dies (the run's numbers would be wrong). They print only their
        // own lines: no banner, no start-up report, no framework INFO; warnings and errors still show.
        application.setWebApplicationType(WebApplicationType.NONE);
        application.setBannerMode(Banner.Mode.OFF);
        application.setLogStartupInfo(false);
        CommandOutput output = CommandOutput.watch(command.out(), command.outCreated());
        int exit;
        try (OwnRedisServer server = OwnRedisServer.start(false)) {
            List<String> withServer = new ArrayList<>(command.springArguments());
            withServer.add(command.mode() == CommandLine.Mode.BENCHMARK ? "--benchmark" : "--lab");
            withServer.add("--sample.run.duration=" + command.duration().toMillis() + "ms");
            withServer.add("--sample.run.out=" + command.out());
            withServer.add("--spring.data.redis.host=127.0.0.1");
            withServer.add("--spring.data.redis.port=" + server.port());
            withServer.add("--spring.data.redis.jedis.pool.max-active=64");
            withServer.add("--logging.level.root=WARN");
            withServer.add("--logging.level.dev.turnstile=ERROR");
            exit = SpringApplication.exit(application.run(withServer.toArray(String[]::new)));
        }
        output.finished();
        System.exit(exit);
    }
}
