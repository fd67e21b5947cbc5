package org.flinkss.jobs.cli.options;

import picocli.CommandLine.Option;

import org.flinkss.runtime.expect.Expectation;
import org.flinkss.runtime.query.RunOptions;

import java.util.ArrayList;
import java.util.List;

/** {@code --expect NAME:EXPR:ACTION}, repeatable: data-quality rules on the rows written. */
public final class ExpectOption {

    @Option(
            names = "--expect",
            paramLabel = "NAME:EXPR:ACTION",
            converter = Converters.ExpectationRule.class,
            description =
                    "a data-quality rule on the rows the query appends to its main table (the first"
                        + " it writes; TABLE.NAME:EXPR:ACTION names another), repeatable. EXPR is a"
                        + " Flink SQL boolean expression over the table's columns; a row passes"
                        + " when it is TRUE (FALSE and NULL fail, as in Lakeflow). ACTION: warn"
                        + " (kept, counted), drop (left out, counted, written to <table>_rejected"
                        + " with the rule's name), fail (the batch fails before it commits, naming"
                        + " the rule and a row; table and checkpoint unchanged). Counted per rule"
                        + " and batch in progress ('expectations'). Rules may change between runs."
                        + " E.g. --expect 'positive_amount:amount >= 0:drop'")
    List<Expectation> rules = new ArrayList<>();

    /** The rules as given, in order. */
    public List<Expectation> rules() {
        return rules;
    }

    void applyTo(RunOptions.Builder options) {
        options.expectations(rules);
    }
}
