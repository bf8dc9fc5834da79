// Package plugins holds perfls's build tool entry points, which are not Go:
// the Maven plugin (maven/, `mvn perfls:check`) and the Gradle task
// (gradle/perfls.gradle, `gradle perfls`). Its test builds the plugin
// offline with Debian's Maven and runs both on the tutorial's project.
package plugins
