-- bench-latency's bronze to Kafka: the course's events read from a topic, their bronze columns
-- written to another topic as they arrive, one record per event. scripts/bench-latency runs it with
-- `sql --file` on its own broker and topics (it replaces the broker, the topics and the delivery
-- guarantee below), and measures each record's latency from the moment the producer sent its input
-- to the moment a consumer reads it (docs/latency.md).
--
--   scripts/bench-latency --queries bronze
--
-- The send time is the input record's Kafka timestamp (the producer's clock when it sent it); it is
-- written as the output record's timestamp, so that the consumer needs no field of the value.

CREATE TEMPORARY TABLE events (
  event_id   BIGINT,
  user_id    INT,
  event_type STRING,
  event_ts   TIMESTAMP_LTZ(3),
  amount     DOUBLE,
  sent       TIMESTAMP_LTZ(3) METADATA FROM 'timestamp' VIRTUAL
) WITH (
  'connector' = 'kafka',
  'topic' = 'latency-events',
  'properties.bootstrap.servers' = '127.0.0.1:9092',
  'scan.startup.mode' = 'earliest-offset',
  'format' = 'json'
);

-- Flink's upsert-kafka sink: the key is event_id, the value the bronze columns as a JSON object.
-- 'sink.delivery-guarantee': at-least-once (each record sent at once, read by read_uncommitted
-- consumers), or exactly-once (Kafka transactions committed with each checkpoint, read by
-- read_committed consumers).
CREATE TEMPORARY TABLE bronze_out (
  k    STRING,
  v    STRING,
  sent TIMESTAMP_LTZ(3) METADATA FROM 'timestamp',
  PRIMARY KEY (k) NOT ENFORCED
) WITH (
  'connector' = 'upsert-kafka',
  'topic' = 'latency-bronze',
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
  'sink.transactional-id-prefix' = 'latency-bronze'
);

INSERT INTO bronze_out
SELECT
  CAST(event_id AS STRING),
  JSON_OBJECT(
    'event_id' VALUE event_id,
    'user_id' VALUE user_id,
    'event_type' VALUE event_type,
    'event_ts' VALUE DATE_FORMAT(event_ts, 'yyyy-MM-dd''T''HH:mm:ss.SSS''Z'''),
    'amount' VALUE amount),
  sent
FROM events;
