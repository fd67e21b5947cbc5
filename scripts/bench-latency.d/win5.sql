-- bench-latency's win5 in update mode to Kafka: the course's win5 (5-minute tumbling windows by
-- event type, COUNT(*) and ROUND(SUM(amount), 2), a 10-minute watermark) over a topic, each window
-- written again every time an event changes it (Spark's outputMode("update")), as it changes.
-- scripts/bench-latency runs it with `sql --file` on its own broker and topics (it replaces the
-- broker, the topics and the delivery guarantee below) (docs/latency.md).
--
--   scripts/bench-latency --queries win5
--
-- Latency of an update: from the send time of the newest event the window counts (the event that
-- changed it) to the moment a consumer reads the update. Each update carries that send time,
-- MAX(sent) of its window, as its Kafka timestamp.
--
-- A window TVF writes a window only when the watermark closes it, so, as `run win5 --api table
-- --output-mode update` does, the windows are a regular aggregation grouped by each row's window
-- start; a row goes only to a window that has not ended by the watermark (Spark drops a row from a
-- window whose end is at or before the watermark). Flink SQL keeps such a regular aggregation's
-- state for every window (docs/output-modes.md).

CREATE TEMPORARY TABLE events (
  event_id   BIGINT,
  user_id    INT,
  event_type STRING,
  event_ts   TIMESTAMP_LTZ(3),
  amount     DOUBLE,
  sent       TIMESTAMP_LTZ(3) METADATA FROM 'timestamp' VIRTUAL,
  -- Spark's withWatermark("event_ts", "10 minutes").
  WATERMARK FOR event_ts AS event_ts - INTERVAL '10' MINUTE
) WITH (
  'connector' = 'kafka',
  'topic' = 'latency-events',
  'properties.bootstrap.servers' = '127.0.0.1:9092',
  'scan.startup.mode' = 'earliest-offset',
  'format' = 'json'
);

-- The key is the window and its event type, the value the window's row as a JSON object.
CREATE TEMPORARY TABLE win5_out (
  k    STRING,
  v    STRING,
  sent TIMESTAMP_LTZ(3) METADATA FROM 'timestamp',
  PRIMARY KEY (k) NOT ENFORCED
) WITH (
  'connector' = 'upsert-kafka',
  'topic' = 'latency-win5',
  'properties.bootstrap.servers' = '127.0.0.1:9092',
  -- Kafka's default since 4.0: a record waits up to 5 ms for others to share its request (the
  -- wait counts in its latency). It measured a little faster than 0 (docs/latency.md).
  'properties.linger.ms' = '5',
  -- Below the 15 minutes brokers allow by default (transaction.max.timeout.ms); Flink's default,
  -- an hour, is refused by such a broker when the first transaction starts.
  'properties.transaction.timeout.ms' = '600000',
  'key.format' = 'raw',
  'value.format' = 'raw',
  'value.fields-include' = 'EXCEPT_KEY',
  'sink.delivery-guarantee' = 'at-least-once',
  'sink.transactional-id-prefix' = 'latency-win5'
);

-- Each row with its window: the start of its 5-minute window in epoch seconds (the session time
-- zone is UTC) and the output's key, <event_type>@<start>. The aggregation is grouped by that key
-- alone so that the planner knows it is the sink's primary key: each change is then one record
-- (grouped by type and start, it would also send a tombstone before each new value).
CREATE TEMPORARY VIEW windowed AS
SELECT CONCAT(event_type, '@', CAST(ws AS STRING)) AS k, ws, event_type, amount, sent
FROM (
  SELECT event_type, amount, sent, event_ts, s - MOD(s, 300) AS ws
  FROM (
    SELECT event_type, amount, sent, event_ts,
           UNIX_TIMESTAMP(DATE_FORMAT(event_ts, 'yyyy-MM-dd HH:mm:ss')) AS s
    FROM events
  )
)
WHERE CURRENT_WATERMARK(event_ts) IS NULL
   OR TO_TIMESTAMP_LTZ(ws + 300, 0) > CURRENT_WATERMARK(event_ts);

INSERT INTO win5_out
SELECT
  k,
  JSON_OBJECT(
    'window_start' VALUE DATE_FORMAT(TO_TIMESTAMP_LTZ(MAX(ws), 0), 'yyyy-MM-dd''T''HH:mm:ss''Z'''),
    'window_end' VALUE DATE_FORMAT(TO_TIMESTAMP_LTZ(MAX(ws) + 300, 0),
                                   'yyyy-MM-dd''T''HH:mm:ss''Z'''),
    'event_type' VALUE MAX(event_type),
    'events' VALUE COUNT(*),
    'amount' VALUE ROUND(SUM(amount), 2)),
  MAX(sent)
FROM windowed
GROUP BY k;
