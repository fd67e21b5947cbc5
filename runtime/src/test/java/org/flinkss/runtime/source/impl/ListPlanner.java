package org.flinkss.runtime.source.impl;

import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

import org.flinkss.runtime.source.ReadLimit;
import org.flinkss.runtime.source.SplitPlanner;
import org.flinkss.runtime.source.WorkSplit;
import org.flinkss.runtime.trigger.Trigger;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * A real {@link SplitPlanner} over work units named in a list, as the file planner is over the
 * files of a folder: each unit is read once, in the order it landed; the committed position is the
 * set of units committed batches read. The list is the test's: units it adds after a listing are
 * seen only at the next one.
 */
final class ListPlanner implements SplitPlanner<ListPlanner.Unit> {

    private static final long serialVersionUID = 1L;

    private final List<String> landed;

    /** What {@link #realTimeLook} says. */
    Duration realTimeLook = Trigger.REAL_TIME_POLL;

    /** When set, looking at the source fails with it (a folder that cannot be listed). */
    IOException listingFails;

    /** How often the enumerator looked at the source. */
    int listings;

    private transient List<String> target;
    private transient Set<String> committed;
    private transient long commits;

    ListPlanner(List<String> landed) {
        this.landed = landed;
    }

    @Override
    public Duration realTimeLook() {
        return realTimeLook;
    }

    @Override
    public void restore(byte[] position) throws IOException {
        target = new ArrayList<>();
        committed = new LinkedHashSet<>();
        commits = 0;
        if (position != null) {
            DataInputDeserializer in = new DataInputDeserializer(position);
            commits = in.readLong();
            int n = in.readInt();
            for (int i = 0; i < n; i++) {
                committed.add(in.readUTF());
            }
        }
    }

    @Override
    public byte[] committed() throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        out.writeLong(commits);
        out.writeInt(committed.size());
        for (String unit : committed) {
            out.writeUTF(unit);
        }
        return out.getCopyOfBuffer();
    }

    @Override
    public void refreshTarget() throws IOException {
        listings++;
        if (listingFails != null) {
            throw listingFails;
        }
        target = new ArrayList<>(landed);
    }

    @Override
    public List<Unit> nextBatch(long batchId, ReadLimit limit) {
        return target.stream()
                .filter(unit -> !committed.contains(unit))
                .limit(limit.maxUnits())
                .map(unit -> new Unit(unit, batchId, 0))
                .collect(Collectors.toList());
    }

    @Override
    public boolean nextBatchIsEmpty() {
        return committed.containsAll(target);
    }

    @Override
    public void commit(List<Unit> batch) {
        for (Unit unit : batch) {
            committed.add(unit.name);
        }
        commits++;
    }

    @Override
    public Map<String, Object> describeOffsets() {
        Map<String, Object> offsets = new LinkedHashMap<>();
        offsets.put("logOffset", commits - 1);
        offsets.put("units", committed.size());
        return offsets;
    }

    @Override
    public SimpleVersionedSerializer<Unit> splitSerializer() {
        return new Unit.Serializer();
    }

    /** One unit of work of one batch. */
    static final class Unit implements WorkSplit {

        final String name;
        final long batchId;
        final long position;

        Unit(String name, long batchId, long position) {
            this.name = name;
            this.batchId = batchId;
            this.position = position;
        }

        @Override
        public String splitId() {
            return name;
        }

        @Override
        public long batchId() {
            return batchId;
        }

        @Override
        public long position() {
            return position;
        }

        @Override
        public Unit withPosition(long newPosition) {
            return new Unit(name, batchId, newPosition);
        }

        @Override
        public String describe() {
            return "unit " + name;
        }

        @Override
        public String toString() {
            return name + "@" + batchId;
        }

        static final class Serializer implements SimpleVersionedSerializer<Unit> {
            @Override
            public int getVersion() {
                return 1;
            }

            @Override
            public byte[] serialize(Unit unit) throws IOException {
                DataOutputSerializer out = new DataOutputSerializer(32);
                out.writeUTF(unit.name);
                out.writeLong(unit.batchId);
                out.writeLong(unit.position);
                return out.getCopyOfBuffer();
            }

            @Override
            public Unit deserialize(int version, byte[] serialized) throws IOException {
                DataInputDeserializer in = new DataInputDeserializer(serialized);
                return new Unit(in.readUTF(), in.readLong(), in.readLong());
            }
        }
    }
}
