package org.flinkss.runtime.table.delta;

import org.apache.flink.core.fs.Path;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.nio.file.Files;
import java.util.List;

/** A table folder as the earlier format left it: part files and a {@code _table.json}. */
final class LegacyFolder {

    private LegacyFolder() {}

    /** {@code _table.json} naming the columns, the writer and, unless append, the mode. */
    static void declare(java.nio.file.Path folder, RowType rowType, String writer, String mode)
            throws Exception {
        ObjectNode node = new ObjectMapper().createObjectNode();
        node.put("name", folder.getFileName().toString());
        node.put("writer", writer);
        if (!mode.equals("append")) {
            node.put("mode", mode);
        }
        ArrayNode cols = node.putArray("columns");
        for (RowType.RowField f : rowType.getFields()) {
            cols.addObject()
                    .put("name", f.getName())
                    .put("type", f.getType().asSerializableString());
        }
        Files.createDirectories(folder);
        Files.writeString(folder.resolve("_table.json"), node.toString());
    }

    /** A part file of the folder, as the earlier FileSink wrote it. */
    static void part(java.nio.file.Path folder, String name, RowType rowType, List<RowData> rows)
            throws Exception {
        DataFiles.writeFile(new Path(folder.resolve(name).toUri()), rowType, rows);
    }
}
