package io.mergesynthesis.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Reads every manifest kustomization.yaml lists into fabric8's Kubernetes model (what a client would send) and
 * checks what the operator guide promises of them.
 */
class KubernetesManifestsTest {

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final Map<String, Class<? extends HasMetadata>> KINDS = Map.of(
            "Deployment", Deployment.class, "Service", Service.class, "Job", Job.class,
            "PodDisruptionBudget", PodDisruptionBudget.class, "Secret", Secret.class);

    /** The label that lets a pod, or every pod of a namespace, reach the admin port (docs/operators.md). */
    private static final String MONITORING_LABEL = "merge-synthesis.io/monitoring";

    private static final String RUNTIME_SECRET = "merge-synthesis";
    private static final String MIGRATION_SECRET = "merge-synthesis-migration";

    private static Path deployDir;
    private static final List<HasMetadata> RESOURCES = new ArrayList<>();
    // Read as trees: the model the rest uses has no NetworkPolicy without one more artifact, and these few
    // fields are plain to read.
    private static final List<JsonNode> NETWORK_POLICIES = new ArrayList<>();

    @BeforeAll
    static void readTheBase() throws IOException {
        deployDir = Path.of(System.getProperty("deploy.dir"));
        Path base = deployDir.resolve("kubernetes");
        JsonNode kustomization = YAML.readTree(base.resolve("kustomization.yaml").toFile());
        for (JsonNode file : kustomization.get("resources")) {
            JsonNode tree = YAML.readTree(base.resolve(file.asText()).toFile());
            if (tree.get("kind").asText().equals("NetworkPolicy")) {
                NETWORK_POLICIES.add(tree);
                continue;
            }
            Class<? extends HasMetadata> type = KINDS.get(tree.get("kind").asText());
            assertThat(type).as("a kind this test knows, in " + file.asText()).isNotNull();
            RESOURCES.add(YAML.treeToValue(tree, type));
        }
    }

    @Test
    void theBaseHoldsEachPartOnce() {
        assertThat(RESOURCES).extracting(r -> r.getClass().getSimpleName())
                .containsExactlyInAnyOrder("Secret", "Secret", "Job", "Deployment", "Service", "PodDisruptionBudget");
    }

    @Test
    void livenessPingsTheAdminPortAndReadinessLeavesTheProviderCircuitsOut() {
        Container server = container(one(Deployment.class).getSpec().getTemplate().getSpec());
        assertThat(server.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/ping");
        assertThat(server.getLivenessProbe().getHttpGet().getPort().getStrVal()).isEqualTo("admin");
        assertThat(server.getReadinessProbe().getHttpGet().getPath())
                .as("/healthcheck includes llm-<provider>, unhealthy on every replica while a circuit is open")
                .isEqualTo("/ready");
        assertThat(server.getReadinessProbe().getHttpGet().getPort().getStrVal()).isEqualTo("admin");
    }

    @Test
    void everyPodRunsAsNonRootOnAReadOnlyRootWithAWritableTmp() {
        for (PodSpec pod : List.of(one(Deployment.class).getSpec().getTemplate().getSpec(),
                one(Job.class).getSpec().getTemplate().getSpec())) {
            assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
            assertThat(pod.getSecurityContext().getRunAsUser()).isPositive();
            Container container = container(pod);
            assertThat(container.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
            assertThat(container.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
            VolumeMount tmp = container.getVolumeMounts().stream().filter(m -> m.getMountPath().equals("/tmp"))
                    .findFirst().orElseThrow();
            assertThat(pod.getVolumes()).anyMatch(v -> v.getName().equals(tmp.getName()) && v.getEmptyDir() != null);
            assertThat(container.getResources().getRequests()).containsKeys("cpu", "memory");
            assertThat(container.getResources().getLimits()).containsKey("memory");
            assertThat(container.getEnvFrom()).anyMatch(e -> e.getSecretRef() != null
                    && RESOURCES.stream().anyMatch(r -> r instanceof Secret
                            && r.getMetadata().getName().equals(e.getSecretRef().getName())));
        }
    }

    @Test
    void theMemoryRequestIsTheLimitSoTheHeapShareIsKnown() {
        Container server = container(one(Deployment.class).getSpec().getTemplate().getSpec());
        Quantity request = server.getResources().getRequests().get("memory");
        Quantity limit = server.getResources().getLimits().get("memory");
        assertThat(request.getNumericalAmount()).isEqualByComparingTo(limit.getNumericalAmount());
    }

    @Test
    void terminationGraceOutlastsTheShutdownGraceOfConfigYml() throws IOException {
        String config = Files.readString(deployDir.resolveSibling("config.yml"));
        Matcher grace = Pattern.compile("(?m)^  shutdownGrace: (\\d+)s$").matcher(config);
        assertThat(grace.find()).as("synthesis.shutdownGrace in config.yml").isTrue();
        Duration shutdownGrace = Duration.ofSeconds(Long.parseLong(grace.group(1)));
        long podGrace = one(Deployment.class).getSpec().getTemplate().getSpec().getTerminationGracePeriodSeconds();
        assertThat(Duration.ofSeconds(podGrace)).isGreaterThan(shutdownGrace.plusSeconds(5));
    }

    @Test
    void theDisruptionBudgetCoversTheServerPods() {
        PodDisruptionBudget budget = one(PodDisruptionBudget.class);
        assertThat(budget.getSpec().getSelector().getMatchLabels())
                .isEqualTo(one(Deployment.class).getSpec().getSelector().getMatchLabels());
        assertThat(budget.getSpec().getMaxUnavailable().getIntVal()).isEqualTo(1);
        assertThat(one(Deployment.class).getSpec().getReplicas()).isGreaterThan(1);
    }

    @Test
    void theMigrationJobRunsDbMigrate() {
        Container migrate = container(one(Job.class).getSpec().getTemplate().getSpec());
        assertThat(migrate.getArgs()).containsExactly("db", "migrate", "/app/resources/config.yml");
        assertThat(migrate.getImage()).isEqualTo(container(one(Deployment.class).getSpec().getTemplate().getSpec())
                .getImage());
    }

    @Test
    void theServiceOffersBothPortsOfTheServerPods() {
        Service service = one(Service.class);
        assertThat(service.getSpec().getPorts()).extracting(ServicePort::getPort).containsExactlyInAnyOrder(8080, 8081);
        assertThat(service.getSpec().getSelector()).isEqualTo(one(Deployment.class).getSpec().getSelector()
                .getMatchLabels());
        assertThat(container(one(Deployment.class).getSpec().getTemplate().getSpec()).getPorts())
                .extracting(p -> p.getName() + "=" + p.getContainerPort())
                .containsExactlyInAnyOrder("http=8080", "admin=8081");
    }

    @Test
    void theSecretHoldsTheDatabaseAndProviderEntriesAsPlaceholdersOnly() {
        Map<String, String> data = secret(RUNTIME_SECRET).getStringData();
        assertThat(data).containsKeys("DATABASE_URL", "DATABASE_USER", "DATABASE_PASSWORD", "ANTHROPIC_API_KEY",
                "OPENAI_API_KEY");
        assertThat(data.get("ANTHROPIC_API_KEY")).isEmpty();
        assertThat(data.get("OPENAI_API_KEY")).isEmpty();
        assertThat(data.get("DATABASE_URL")).startsWith("jdbc:postgresql://");
        // Nothing shaped like a provider key or a long random token.
        assertThat(data.values()).noneMatch(v -> v.matches(".*(sk-|[A-Za-z0-9_-]{32,}).*"));
    }

    @Test
    void theMigrationJobAloneHoldsTheMigrationLoginAndTheReplicasDoNotMigrate() {
        Map<String, String> migration = secret(MIGRATION_SECRET).getStringData();
        assertThat(migration).containsKeys("MIGRATION_DATABASE_USER", "MIGRATION_DATABASE_PASSWORD");
        assertThat(migration.get("MIGRATION_DATABASE_USER"))
                .isNotEqualTo(secret(RUNTIME_SECRET).getStringData().get("DATABASE_USER"));

        Container migrate = container(one(Job.class).getSpec().getTemplate().getSpec());
        assertThat(migrate.getEnvFrom()).extracting(e -> e.getSecretRef().getName()).containsExactly(MIGRATION_SECRET);
        // Of the runtime's Secret, the Job reads whom to grant the roles to, and where: not its password.
        assertThat(migrate.getEnv()).extracting(EnvVar::getName).containsExactlyInAnyOrder("DATABASE_URL",
                "DATABASE_USER");
        assertThat(migrate.getEnv()).allMatch(e -> e.getValueFrom().getSecretKeyRef().getName().equals(RUNTIME_SECRET)
                && e.getValueFrom().getSecretKeyRef().getKey().equals(e.getName()));

        Container server = container(serverPod());
        assertThat(server.getEnvFrom()).extracting(e -> e.getSecretRef().getName()).containsExactly(RUNTIME_SECRET);
        assertThat(server.getEnv()).anyMatch(e -> e.getName().equals("MIGRATE_ON_START")
                && e.getValue().equals("false"));
    }

    @Test
    void everyPortOfTheServerPodsIsGovernedByANetworkPolicyRule() {
        List<JsonNode> policies = policiesOfTheServerPods();
        assertThat(policies).as("NetworkPolicies selecting the server pods").isNotEmpty();
        for (ContainerPort port : container(serverPod()).getPorts()) {
            assertThat(policies.stream().flatMap(p -> rulesAdmitting(p, port).stream()).toList())
                    .as("an ingress rule naming port " + port.getName())
                    .isNotEmpty()
                    .allMatch(rule -> rule.has("ports"), "names its ports");
        }
    }

    @Test
    void theApiPortIsOpenAsTheServiceOffersIt() {
        ContainerPort http = port("http");
        assertThat(policiesOfTheServerPods().stream().flatMap(p -> rulesAdmitting(p, http).stream()))
                .anyMatch(rule -> !rule.has("from"));
    }

    @Test
    void theAdminPortIsOpenOnlyToPodsOrNamespacesLabelledForMonitoring() {
        ContainerPort admin = port("admin");
        List<JsonNode> rules = policiesOfTheServerPods().stream().flatMap(p -> rulesAdmitting(p, admin).stream())
                .toList();
        assertThat(rules).isNotEmpty();
        for (JsonNode rule : rules) {
            assertThat(rule.path("from").size()).as("an admin rule names who may come in").isPositive();
            for (JsonNode peer : rule.get("from")) {
                assertThat(peer.has("ipBlock")).as("no address range reaches the admin port").isFalse();
                assertThat(peer.fieldNames()).toIterable().allMatch(
                        selector -> peer.get(selector).path("matchLabels").path(MONITORING_LABEL).asText()
                                .equals("true"),
                        "every selector of an admin peer requires " + MONITORING_LABEL + ": \"true\"");
            }
        }
    }

    private static Secret secret(String name) {
        return RESOURCES.stream().filter(r -> r instanceof Secret && r.getMetadata().getName().equals(name))
                .map(Secret.class::cast).findFirst().orElseThrow();
    }

    private static PodSpec serverPod() {
        return one(Deployment.class).getSpec().getTemplate().getSpec();
    }

    private static ContainerPort port(String name) {
        return container(serverPod()).getPorts().stream().filter(p -> p.getName().equals(name)).findFirst()
                .orElseThrow();
    }

    /** The policies that restrict traffic into the server pods: their selector's labels are all on the pods. */
    private static List<JsonNode> policiesOfTheServerPods() {
        Map<String, String> podLabels = one(Deployment.class).getSpec().getTemplate().getMetadata().getLabels();
        return NETWORK_POLICIES.stream()
                .filter(policy -> policy.at("/spec/policyTypes").toString().contains("\"Ingress\""))
                .filter(policy -> {
                    JsonNode wanted = policy.at("/spec/podSelector/matchLabels");
                    List<String> keys = new ArrayList<>();
                    wanted.fieldNames().forEachRemaining(keys::add);
                    return keys.stream().allMatch(k -> wanted.get(k).asText().equals(podLabels.get(k)));
                })
                .toList();
    }

    /** A policy's ingress rules that let traffic reach {@code port}: naming it or its number, or naming no port. */
    private static List<JsonNode> rulesAdmitting(JsonNode policy, ContainerPort port) {
        List<JsonNode> admitting = new ArrayList<>();
        for (JsonNode rule : policy.at("/spec/ingress")) {
            boolean any = !rule.has("ports") || rule.get("ports").isEmpty();
            boolean named = false;
            for (JsonNode p : rule.path("ports")) {
                JsonNode number = p.path("port");
                named |= number.isMissingNode() || number.asText().equals(port.getName())
                        || number.asText().equals(String.valueOf(port.getContainerPort()));
            }
            if (any || named) {
                admitting.add(rule);
            }
        }
        return admitting;
    }

    private static Container container(PodSpec pod) {
        assertThat(pod.getContainers()).hasSize(1);
        return pod.getContainers().get(0);
    }

    private static <T extends HasMetadata> T one(Class<T> type) {
        List<T> found = RESOURCES.stream().filter(type::isInstance).map(type::cast).toList();
        assertThat(found).as(type.getSimpleName()).hasSize(1);
        return found.get(0);
    }
}
