package org.flinkss.runtime.sql;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class SqlConstraintStatementTest {

    @Test
    void addKeepsTheExpressionAsWrittenAndTheNameInLowerCase() {
        assertThat(
                        SqlConstraintStatement.parse(
                                "alter table `my table`\n  ADD CONSTRAINT Positive CHECK ("
                                        + " amount > 0 AND (id IS NOT NULL) )"))
                .contains(
                        new SqlConstraintStatement(
                                "my table", "positive", "amount > 0 AND (id IS NOT NULL)", false));
    }

    @Test
    void dropWithAndWithoutIfExists() {
        assertThat(SqlConstraintStatement.parse("ALTER TABLE t DROP CONSTRAINT c"))
                .contains(new SqlConstraintStatement("t", "c", null, false));
        assertThat(SqlConstraintStatement.parse("ALTER TABLE t DROP CONSTRAINT IF EXISTS c"))
                .contains(new SqlConstraintStatement("t", "c", null, true));
    }

    @Test
    void otherStatementsAreLeftToFlinksParser() {
        assertThat(SqlConstraintStatement.parse("ALTER TABLE t ADD CONSTRAINT pk PRIMARY KEY (id)"))
                .isEmpty();
        assertThat(SqlConstraintStatement.parse("INSERT INTO t SELECT * FROM s")).isEmpty();
        assertThat(SqlConstraintStatement.parse("ALTER TABLE t ADD CONSTRAINT c CHECK amount > 0"))
                .isEmpty();
    }
}
