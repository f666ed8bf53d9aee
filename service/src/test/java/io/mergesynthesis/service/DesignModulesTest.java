package io.mergesynthesis.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * What the design guide and the decision records say about themselves holds. The module list of docs/design.md
 * names exactly the modules of the root POM, each with the sibling modules its POM depends on; and every decision
 * record has a status, is in the index docs/adr/README.md, and, once superseded, names a successor that exists and
 * names it back. Both drifted before: the guide left a module out and gave one module fewer dependencies than its
 * POM has.
 */
class DesignModulesTest {

    private static final String GROUP = "io.mergesynthesis";
    private static final Pattern TABLE_ROW = Pattern.compile("(?m)^\\|\\s*`([^`]+)`\\s*\\|([^|]*)\\|");
    private static final Pattern NAME = Pattern.compile("`([^`]+)`");
    private static final Pattern FENCE = Pattern.compile("(?s)```\\n(.*?)```");
    private static final Pattern TREE_DIR = Pattern.compile("(?m)^([A-Za-z0-9_.-]+)/\\s");
    private static final Pattern RECORD = Pattern.compile("\\d{4}-.+\\.md");
    private static final Pattern STATUS = Pattern.compile("(?m)^Status: (.+)$");
    private static final Pattern RECORD_LINK = Pattern.compile("\\[ADR (\\d{4})\\]\\(([^)\\s]+)\\)");

    @Test
    void theModuleListOfTheDesignGuideIsThePoms() throws Exception {
        Path root = repositoryRoot();
        Map<String, Set<String>> poms = new LinkedHashMap<>();
        List<String> modules = modulesOf(root.resolve("pom.xml"));
        for (String module : modules) {
            poms.put(module, siblingDependencies(root.resolve(module).resolve("pom.xml"), modules));
        }
        assertThat(modules).as("modules of the root POM").contains("service", "deploy");

        String section = modulesSection(Files.readString(root.resolve("docs/design.md")));
        assertThat(problems(poms, section)).as("docs/design.md's module list against the POMs").isEmpty();
    }

    @Test
    void aModuleLeftOutOrWronglyWiredIsFound() {
        Map<String, Set<String>> poms = new LinkedHashMap<>();
        poms.put("api", Set.of());
        poms.put("llm", Set.of("api"));
        poms.put("deploy", Set.of("api"));
        String right = "```\napi/ a\nllm/ b\ndeploy/ c\n```\n| `api` | none | x |\n| `llm` | `api` | y |\n"
                + "| `deploy` | `api` | z |\n";
        assertThat(problems(poms, right)).isEmpty();

        String missing = right.replace("| `deploy` | `api` | z |\n", "").replace("deploy/ c\n", "");
        assertThat(problems(poms, missing)).containsExactlyInAnyOrder(
                "deploy: in the root POM, not in the module table",
                "deploy: in the root POM, not in the directory tree");
        assertThat(problems(poms, right + "| `ghost` | none | w |\n"))
                .containsExactly("ghost: in the module table, not a module of the root POM");
        assertThat(problems(poms, right.replace("| `llm` | `api` | y |", "| `llm` | none | y |")))
                .containsExactly("llm: the table says it depends on [], its POM on [api]");
    }

    @Test
    void everyRecordHasAStatusAndIsInTheIndex() throws IOException {
        Path adr = repositoryRoot().resolve("docs/adr");
        assertThat(adr.resolve("README.md")).as("the index of decision records").isRegularFile();
        String index = Files.readString(adr.resolve("README.md"));
        List<String> problems = new ArrayList<>();
        for (Path record : records(adr)) {
            String name = record.getFileName().toString();
            if (!STATUS.matcher(Files.readString(record)).find()) {
                problems.add(name + ": no line starting with 'Status: '");
            }
            if (!index.contains("](" + name + ")")) {
                problems.add(name + ": not linked from docs/adr/README.md");
            }
        }
        assertThat(problems).isEmpty();
        assertThat(records(adr)).hasSizeGreaterThan(50);
    }

    @Test
    void everySupersededRecordNamesASuccessorThatExistsAndNamesItBack() throws IOException {
        Path adr = repositoryRoot().resolve("docs/adr");
        List<String> problems = new ArrayList<>();
        int superseded = 0;
        for (Path record : records(adr)) {
            String name = record.getFileName().toString();
            Matcher status = STATUS.matcher(Files.readString(record));
            if (!status.find() || !status.group(1).contains("superseded by")) {
                continue;
            }
            superseded++;
            boolean partly = status.group(1).contains("partly superseded by");
            String after = status.group(1).substring(status.group(1).indexOf("superseded by"));
            int end = after.indexOf(';');
            Matcher successor = RECORD_LINK.matcher(end < 0 ? after : after.substring(0, end));
            int successors = 0;
            while (successor.find()) {
                successors++;
                Path next = adr.resolve(successor.group(2)).normalize();
                if (!Files.isRegularFile(next) || !RECORD.matcher(next.getFileName().toString()).matches()) {
                    problems.add(name + ": successor " + successor.group(2) + " is not a record");
                    continue;
                }
                String text = Files.readString(next);
                if (!text.contains("](" + name + ")")) {
                    problems.add(name + ": its successor " + successor.group(2) + " does not link back to it");
                }
                Matcher nextStatus = STATUS.matcher(text);
                if (!partly && nextStatus.find() && nextStatus.group(1).startsWith("superseded by")) {
                    problems.add(name + ": its successor " + successor.group(2) + " is itself superseded");
                }
            }
            if (successors == 0) {
                problems.add(name + ": superseded, but its status names no successor as [ADR nnnn](file)");
            }
        }
        assertThat(problems).isEmpty();
        assertThat(superseded).as("records marked superseded").isGreaterThan(0);
    }

    /** What the design guide's module section gets wrong about {@code poms}: module to sibling modules it uses. */
    static List<String> problems(Map<String, Set<String>> poms, String section) {
        Map<String, Set<String>> table = new LinkedHashMap<>();
        Matcher row = TABLE_ROW.matcher(section);
        while (row.find()) {
            Set<String> uses = new TreeSet<>();
            Matcher name = NAME.matcher(row.group(2));
            while (name.find()) {
                uses.add(name.group(1));
            }
            table.put(row.group(1), uses);
        }
        Set<String> tree = new LinkedHashSet<>();
        Matcher fence = FENCE.matcher(section);
        while (fence.find()) {
            Matcher dir = TREE_DIR.matcher(fence.group(1));
            while (dir.find()) {
                tree.add(dir.group(1));
            }
        }
        List<String> problems = new ArrayList<>();
        for (Map.Entry<String, Set<String>> module : poms.entrySet()) {
            String name = module.getKey();
            if (!table.containsKey(name)) {
                problems.add(name + ": in the root POM, not in the module table");
            } else if (!table.get(name).equals(new TreeSet<>(module.getValue()))) {
                problems.add(name + ": the table says it depends on " + table.get(name) + ", its POM on "
                        + new TreeSet<>(module.getValue()));
            }
            if (!tree.contains(name)) {
                problems.add(name + ": in the root POM, not in the directory tree");
            }
        }
        for (String name : table.keySet()) {
            if (!poms.containsKey(name)) {
                problems.add(name + ": in the module table, not a module of the root POM");
            }
        }
        return problems;
    }

    private static String modulesSection(String design) {
        int start = design.indexOf("\n## Modules\n");
        assertThat(start).as("a '## Modules' section in docs/design.md").isNotNegative();
        int end = design.indexOf("\n## ", start + 1);
        return end < 0 ? design.substring(start) : design.substring(start, end);
    }

    private static List<String> modulesOf(Path pom) throws Exception {
        List<String> modules = new ArrayList<>();
        for (Element list : children(parse(pom).getDocumentElement(), "modules")) {
            for (Element module : children(list, "module")) {
                modules.add(module.getTextContent().trim());
            }
        }
        return modules;
    }

    /** The modules of this build that a POM's own dependencies name (any scope; not plugins' or profiles'). */
    private static Set<String> siblingDependencies(Path pom, List<String> modules) throws Exception {
        Set<String> uses = new TreeSet<>();
        for (Element list : children(parse(pom).getDocumentElement(), "dependencies")) {
            for (Element dependency : children(list, "dependency")) {
                String group = text(dependency, "groupId");
                String artifact = text(dependency, "artifactId");
                boolean ours = GROUP.equals(group) || "${project.groupId}".equals(group);
                if (ours && modules.contains(artifact)) {
                    uses.add(artifact);
                }
            }
        }
        return uses;
    }

    private static Document parse(Path pom) throws Exception {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setNamespaceAware(false);
        factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        return factory.newDocumentBuilder().parse(pom.toFile());
    }

    private static List<Element> children(Element parent, String tag) {
        List<Element> found = new ArrayList<>();
        for (Node node = parent.getFirstChild(); node != null; node = node.getNextSibling()) {
            if (node instanceof Element element && element.getTagName().equals(tag)) {
                found.add(element);
            }
        }
        return found;
    }

    private static String text(Element parent, String tag) {
        List<Element> found = children(parent, tag);
        return found.isEmpty() ? null : found.get(0).getTextContent().trim();
    }

    private static List<Path> records(Path adr) throws IOException {
        try (Stream<Path> listed = Files.list(adr)) {
            return listed.filter(p -> RECORD.matcher(p.getFileName().toString()).matches()).sorted().toList();
        }
    }

    private static Path repositoryRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("pom.xml")) && Files.isDirectory(dir.resolve("docs/adr"))) {
                return dir;
            }
        }
        throw new IllegalStateException("pom.xml and docs/adr not found above " + Path.of("").toAbsolutePath());
    }
}
