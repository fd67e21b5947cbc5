-- The course's win5 (topic 11.07) over a Kafka topic: 5-minute tumbling windows by event type,
-- with a 10-minute watermark, into events_5min; the topic holds the course's events as JSON
-- (land-events --to-kafka --topic events).
--
--   flinkss sql --file examples/sql/kafka-win5.sql
--
-- Each available-now run reads the offsets found at its start, from where the last committed run
-- stopped (the offsets live in the checkpoint <base>/_cp/kafka-win5), as run kafka-bronze does.

CREATE TEMPORARY TABLE events (
  event_id     BIGINT,
  user_id      INT,
  event_type   STRING,
  event_ts     TIMESTAMP_LTZ(3),
  amount       DOUBLE,
  -- Where each record was, as Flink's Kafka connector declares it.
  `partition`  INT METADATA VIRTUAL,
  kafka_offset BIGINT METADATA FROM 'offset' VIRTUAL,
  -- Spark's withWatermark("event_ts", "10 minutes"): the micro-batch watermark.
  WATERMARK FOR event_ts AS event_ts - INTERVAL '10' MINUTE
) WITH (
  'connector' = 'kafka',
  'topic' = 'events',
  'properties.bootstrap.servers' = '127.0.0.1:9092',
  -- Spark's startingOffsets: where a fresh checkpoint starts (latest-offset by default).
  'scan.startup.mode' = 'earliest-offset',
  'format' = 'json'
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
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(event_ts), INTERVAL '5' MINUTE))
GROUP BY window_start, window_end, event_type;
