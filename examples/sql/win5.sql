-- The course's win5 (topic 11.07) as your own query: 5-minute tumbling windows by event type
-- over events_bronze, with a 10-minute watermark, into events_5min.
--
--   flinkss sql --file examples/sql/win5.sql
--
-- gives the table that `flinkss run win5` gives (only late rows are not kept in a table).

CREATE TEMPORARY TABLE events_bronze (
  event_id   BIGINT,
  user_id    INT,
  event_type STRING,
  event_ts   TIMESTAMP_LTZ(3),
  amount     DOUBLE,
  -- Spark's withWatermark("event_ts", "10 minutes"): the micro-batch watermark.
  WATERMARK FOR event_ts AS event_ts - INTERVAL '10' MINUTE
) WITH (
  'connector' = 'delta',
  'table' = 'events_bronze'
);

CREATE TEMPORARY TABLE events_5min (
  window_start TIMESTAMP_LTZ(3),
  window_end   TIMESTAMP_LTZ(3),
  event_type   STRING,
  events       BIGINT,
  amount       DOUBLE
) WITH (
  'connector' = 'delta',
  'table' = 'events_5min'
);

INSERT INTO events_5min
SELECT window_start, window_end, event_type, COUNT(*) AS events, ROUND(SUM(amount), 2) AS amount
FROM TABLE(TUMBLE(TABLE events_bronze, DESCRIPTOR(event_ts), INTERVAL '5' MINUTE))
GROUP BY window_start, window_end, event_type;
