package io.cybernetes.store.internal;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.TestPropertySource;

/** The store contract on embedded H2 (a file database, as the default configuration runs it). */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.NONE)
@TestPropertySource(properties = {
        "spring.datasource.url=jdbc:h2:file:./target/test-data/h2-store/db;WRITE_DELAY=0",
        "cybernetes.auth.data-dir=./target/test-data/h2-store",
        "cybernetes.controllers.enabled=false",
        "cybernetes.scheduler.enabled=false",
        "cybernetes.nodes.count=0"})
class H2StoreTest extends StoreContractTest {
}
