package org.flinkss.runtime.sink.jdbc;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.Map;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A password in a JDBC URL is seen by every user of the machine in {@code ps}: it is warned about
 * without being shown, and the documented way (the environment, or a properties file) reaches the
 * connection's properties.
 */
class JdbcCredentialsTest {

    @TempDir Path dir;

    @Test
    void aPasswordInTheUrlIsWarnedAboutWithoutShowingItAndNamesTheEnvironmentVariable() {
        for (String url :
                new String[] {
                    "jdbc:postgresql://db:5432/shop?user=app&password=s3cret",
                    "jdbc:postgresql://db:5432/shop?PASSWORD=s3cret&user=app",
                    "jdbc:postgresql://app:s3cret@db:5432/shop",
                    "jdbc:sqlserver://db;user=app;password=s3cret"
                }) {
            assertThat(JdbcCredentials.passwordInUrl(url)).as(url).isTrue();
            String warning = JdbcCredentials.urlPasswordWarning(url);
            assertThat(warning)
                    .as(url)
                    .startsWith("warning: --jdbc-url ")
                    .contains("carries a password")
                    .contains("(ps)")
                    .contains("FLINKSS_JDBC_PASSWORD")
                    .contains("FLINKSS_JDBC_PROPERTIES")
                    .doesNotContain("s3cret")
                    .doesNotContain("\n");
            assertThat(JdbcCredentials.redacted(url)).doesNotContain("s3cret");
        }
    }

    @Test
    void aUrlWithoutAPasswordIsNotWarnedAbout() {
        for (String url :
                new String[] {
                    "jdbc:sqlite:/data/warehouse/warehouse.db",
                    "jdbc:postgresql://db:5432/shop",
                    "jdbc:postgresql://db:5432/shop?user=app",
                    "jdbc:postgresql://db:5432/shop?password=",
                    "jdbc:postgresql://db:5432/shop?ssl=true&sslpassword_file=x"
                }) {
            assertThat(JdbcCredentials.passwordInUrl(url)).as(url).isFalse();
            assertThat(JdbcCredentials.urlPasswordWarning(url)).as(url).isNull();
        }
    }

    @Test
    void theUnsupportedUrlRefusalDoesNotShowThePassword() {
        assertThatThrownBy(() -> new Database("jdbc:mysql://app:s3cret@db/shop?password=s3cret"))
                .hasMessageContaining("unsupported JDBC URL 'jdbc:mysql://***:***@db/shop")
                .hasMessageNotContaining("s3cret");
        assertThat(new Database("jdbc:postgresql://app:s3cret@db/shop").describe())
                .isEqualTo("jdbc:postgresql://***:***@db/shop");
    }

    @Test
    void thePasswordFromTheEnvironmentReachesTheConnectionProperties() throws Exception {
        Properties props =
                JdbcCredentials.from(
                        Map.of(
                                JdbcCredentials.USER_VARIABLE, "app",
                                JdbcCredentials.PASSWORD_VARIABLE, "s3cret"));
        assertThat(props.getProperty("user")).isEqualTo("app");
        assertThat(props.getProperty("password")).isEqualTo("s3cret");
        assertThat(JdbcCredentials.from(Map.of())).isEmpty();
    }

    @Test
    void aPropertiesFileNamedByTheEnvironmentGivesThemAndTheVariablesWin() throws Exception {
        Path file = dir.resolve("db.properties");
        Files.writeString(file, "user=fromfile\npassword=filepw\n");
        Properties props =
                JdbcCredentials.from(Map.of(JdbcCredentials.PROPERTIES_VARIABLE, file.toString()));
        assertThat(props.getProperty("user")).isEqualTo("fromfile");
        assertThat(props.getProperty("password")).isEqualTo("filepw");

        Properties both =
                JdbcCredentials.from(
                        Map.of(
                                JdbcCredentials.PROPERTIES_VARIABLE,
                                file.toString(),
                                JdbcCredentials.PASSWORD_VARIABLE,
                                "envpw"));
        assertThat(both.getProperty("user")).isEqualTo("fromfile");
        assertThat(both.getProperty("password")).isEqualTo("envpw");

        assertThatThrownBy(
                        () ->
                                JdbcCredentials.from(
                                        Map.of(
                                                JdbcCredentials.PROPERTIES_VARIABLE,
                                                dir.resolve("missing").toString())))
                .isInstanceOf(SQLException.class)
                .hasMessageContaining("FLINKSS_JDBC_PROPERTIES");
    }
}
