package org.flinkss.runtime.sql;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class SqlScriptTest {

    @Test
    void statementsEndAtSemicolonsOutsideQuotesAndCommentsAndKeepTheirFirstLine() {
        String file =
                "-- a comment; not a statement\n" // 1
                        + "\n" // 2
                        + "SET 'a.b' = 'x;y';\n" // 3
                        + "CREATE TEMPORARY TABLE `t;1` (\n" // 4
                        + "  c STRING /* ; */\n" // 5
                        + ") WITH ('connector' = 'delta', 'table' = 'it''s');\n" // 6
                        + "  INSERT INTO x\n" // 7
                        + "  SELECT c FROM `t;1`"; // 8, no closing semicolon

        List<SqlStatement> statements = SqlScript.split(file);

        assertThat(statements).extracting(SqlStatement::number).containsExactly(1, 2, 3);
        assertThat(statements).extracting(SqlStatement::line).containsExactly(3, 4, 7);
        assertThat(statements.get(0).text()).isEqualTo("SET 'a.b' = 'x;y'");
        assertThat(statements.get(1).text())
                .startsWith("CREATE TEMPORARY TABLE `t;1` (")
                .endsWith("'table' = 'it''s')")
                .doesNotContain("/*");
        assertThat(statements.get(2).text()).isEqualTo("INSERT INTO x\n  SELECT c FROM `t;1`");
        // Line 2 of statement 3 is line 8 of the file.
        assertThat(statements.get(2).fileLine(2)).isEqualTo(8);
    }

    @Test
    void aStatementsHeadIsItsFirstWordsOnOneLine() {
        SqlStatement s =
                new SqlStatement(
                        1,
                        1,
                        "INSERT INTO events_5min\nSELECT window_start, window_end, event_type,"
                                + " COUNT(*) FROM somewhere");
        assertThat(s.head())
                .isEqualTo("INSERT INTO events_5min SELECT window_start, window_end, ...");
    }

    @Test
    void commentsAndBlankLinesAloneAreNoStatement() {
        assertThat(SqlScript.split("-- only\n/* comments */\n;\n")).isEmpty();
    }
}
