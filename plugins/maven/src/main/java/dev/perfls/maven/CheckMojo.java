package dev.perfls.maven;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.maven.artifact.Artifact;
import org.apache.maven.plugin.AbstractMojo;
import org.apache.maven.plugin.MojoExecutionException;
import org.apache.maven.plugin.MojoFailureException;
import org.apache.maven.plugins.annotations.LifecyclePhase;
import org.apache.maven.plugins.annotations.Mojo;
import org.apache.maven.plugins.annotations.Parameter;
import org.apache.maven.plugins.annotations.ResolutionScope;
import org.apache.maven.project.MavenProject;

/**
 * Runs {@code perfls check} on this module with the classpath Maven resolved (every scope, as
 * perfls itself reads it with {@code mvn dependency:build-classpath -Dmdep.includeScope=test}),
 * written to {@code target/perfls-classpath.txt} and passed with {@code --classpath-file}.
 * perfls's exit status decides: 0 passes, 1 (a formula is violated) fails the build, anything
 * else (perfls could not do its work) is a build error.
 *
 * <p>Run it as {@code mvn perfls:check}, or bind it to {@code verify} with an {@code
 * <execution>} (docs/install.md).
 */
@Mojo(
    name = "check",
    defaultPhase = LifecyclePhase.VERIFY,
    requiresDependencyResolution = ResolutionScope.TEST,
    threadSafe = true)
public class CheckMojo extends AbstractMojo {
  /** perfls's exit status when a formula is violated. */
  static final int EXIT_VIOLATED = 1;

  @Parameter(defaultValue = "${project}", readonly = true, required = true)
  private MavenProject project;

  /** The perfls binary: a name looked up on PATH, or a path. */
  @Parameter(property = "perfls.executable", defaultValue = "perfls")
  private String executable;

  /**
   * More arguments for {@code perfls check}, separated by white space, e.g. {@code --forks 10
   * --junit target/perfls.xml}.
   */
  @Parameter(property = "perfls.args")
  private String args;

  /** Where the classpath is written for perfls. */
  @Parameter(
      property = "perfls.classpathFile",
      defaultValue = "${project.build.directory}/perfls-classpath.txt")
  private File classpathFile;

  /** Skips the check. */
  @Parameter(property = "perfls.skip", defaultValue = "false")
  private boolean skip;

  @Override
  public void execute() throws MojoExecutionException, MojoFailureException {
    if (skip) {
      getLog().info("perfls: skipped (perfls.skip)");
      return;
    }
    if ("pom".equals(project.getPackaging())) {
      getLog().info("perfls: skipped: " + project.getArtifactId() + " has packaging pom (no sources)");
      return;
    }
    writeClasspath();
    List<String> command = command();
    getLog().info("perfls: " + String.join(" ", command));
    ProcessBuilder pb = new ProcessBuilder(command).directory(project.getBasedir()).inheritIO();
    javaHome(pb.environment());
    int code = run(pb);
    if (code == 0) {
      return;
    }
    if (code == EXIT_VIOLATED) {
      throw new MojoFailureException(
          "perfls check: a formula is violated (exit status 1); the verdicts are above");
    }
    throw new MojoExecutionException(
        "perfls check could not do its work (exit status " + code + "); its messages are above");
  }

  /** writeClasspath writes the resolved dependencies' files, one a line. */
  private void writeClasspath() throws MojoExecutionException {
    StringBuilder b = new StringBuilder();
    for (Artifact a : project.getArtifacts()) {
      if (a.getFile() != null) {
        b.append(a.getFile().getAbsolutePath()).append('\n');
      }
    }
    try {
      Files.createDirectories(classpathFile.getAbsoluteFile().getParentFile().toPath());
      Files.write(classpathFile.toPath(), b.toString().getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new MojoExecutionException("perfls: write the classpath to " + classpathFile + ": " + e, e);
    }
  }

  private List<String> command() {
    List<String> c = new ArrayList<>();
    c.add(executable);
    c.add("check");
    c.add("--classpath-file");
    c.add(classpathFile.getAbsolutePath());
    if (args != null && !args.trim().isEmpty()) {
      for (String a : args.trim().split("\\s+")) {
        c.add(a);
      }
    }
    c.add(project.getBasedir().getAbsolutePath());
    return c;
  }

  /**
   * javaHome makes perfls compile and measure with the JDK Maven runs on, unless JAVA_HOME says
   * otherwise.
   */
  private static void javaHome(Map<String, String> env) {
    String home = System.getProperty("java.home");
    String set = env.get("JAVA_HOME");
    if ((set == null || set.isEmpty())
        && home != null
        && (new File(home, "bin/javac").isFile() || new File(home, "bin/javac.exe").isFile())) {
      env.put("JAVA_HOME", home);
    }
  }

  private int run(ProcessBuilder pb) throws MojoExecutionException {
    Process p;
    try {
      p = pb.start();
    } catch (IOException e) {
      throw new MojoExecutionException(
          "perfls: cannot run "
              + executable
              + " ("
              + e.getMessage()
              + "): install perfls (docs/install.md) and put it on PATH, or give its path with"
              + " -Dperfls.executable=/path/to/perfls",
          e);
    }
    try {
      return p.waitFor();
    } catch (InterruptedException e) {
      // perfls stops its JVMs on SIGTERM; wait for that, then pass the interrupt on.
      p.destroy();
      try {
        p.waitFor();
      } catch (InterruptedException again) {
        p.destroyForcibly();
      }
      Thread.currentThread().interrupt();
      throw new MojoExecutionException("perfls: interrupted", e);
    }
  }
}
