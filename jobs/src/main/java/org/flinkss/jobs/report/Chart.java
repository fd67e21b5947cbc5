package org.flinkss.jobs.report;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * One chart of the report: its caption, and its specification for the page's script ({@code
 * flinkss-report/report.js} turns it into an ECharts option: axes with titles, clock times in UTC,
 * a legend above the plot, tooltips).
 *
 * @param title the caption under which it is shown
 * @param spec {@code {x: {kind, name, categories?}, y: {kind, name, integer}, series: [{name, type,
 *     data}]}}
 */
public record Chart(String title, ObjectNode spec) {}
