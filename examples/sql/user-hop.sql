-- A query the course does not have, run by `sql --file` and compared with Spark (SparkOracle's
-- userHop): every row that is not a view, in 15-minute windows sliding every 5 minutes, by user,
-- with the count and the smallest, largest and mean amount. The 10-minute watermark is Spark's
-- withWatermark on the source, before the filter.

CREATE TEMPORARY TABLE events_bronze (
  event_id   BIGINT,
  user_id    INT,
  event_type STRING,
  event_ts   TIMESTAMP_LTZ(3),
  amount     DOUBLE,
  WATERMARK FOR event_ts AS event_ts - INTERVAL '10' MINUTE
) WITH ('connector' = 'delta', 'table' = 'events_bronze');

CREATE TEMPORARY TABLE user_hop_amounts (
  window_start TIMESTAMP_LTZ(3),
  window_end   TIMESTAMP_LTZ(3),
  user_id      INT,
  events       BIGINT,
  min_amount   DOUBLE,
  max_amount   DOUBLE,
  avg_amount   DOUBLE
) WITH ('connector' = 'delta', 'table' = 'user_hop_amounts');

INSERT INTO user_hop_amounts
SELECT window_start, window_end, user_id,
       COUNT(*) AS events, MIN(amount) AS min_amount, MAX(amount) AS max_amount,
       ROUND(AVG(amount), 2) AS avg_amount
FROM TABLE(HOP(TABLE events_bronze, DESCRIPTOR(event_ts), INTERVAL '5' MINUTE, INTERVAL '15' MINUTE))
WHERE event_type <> 'view'
GROUP BY window_start, window_end, user_id;
