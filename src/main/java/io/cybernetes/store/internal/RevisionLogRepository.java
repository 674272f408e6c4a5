package io.cybernetes.store.internal;

import org.springframework.data.repository.Repository;

import java.util.List;

/** Spring Data access to the revision log where plain queries suffice. */
interface RevisionLogRepository extends Repository<RevisionLogEntry, Long> {

    List<RevisionLogEntry> findByKeyOrderByRevisionAsc(String key);
}
