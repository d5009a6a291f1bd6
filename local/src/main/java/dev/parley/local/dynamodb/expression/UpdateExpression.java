package dev.parley.local.dynamodb.expression;

import java.util.ArrayList;
import java.util.List;

/** An update expression: its SET, REMOVE, ADD and DELETE actions, in the order written. */
public record UpdateExpression(List<Set> sets, List<Path> removes, List<Add> adds, List<Delete> deletes) {
    public UpdateExpression {
        sets = List.copyOf(sets);
        removes = List.copyOf(removes);
        adds = List.copyOf(adds);
        deletes = List.copyOf(deletes);
    }

    public record Set(Path path, Operand value) {
    }

    public record Add(Path path, Operand.Value value) {
    }

    public record Delete(Path path, Operand.Value value) {
    }

    /** Every path the update writes, in the order the actions appear. */
    public List<Path> targetPaths() {
        List<Path> paths = new ArrayList<>();
        sets.forEach(s -> paths.add(s.path()));
        paths.addAll(removes);
        adds.forEach(a -> paths.add(a.path()));
        deletes.forEach(d -> paths.add(d.path()));
        return paths;
    }
}
