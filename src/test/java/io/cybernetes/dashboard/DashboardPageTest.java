package io.cybernetes.dashboard;

import io.cybernetes.apiserver.ApiTestSupport;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dashboard's page and scripts are served by the application itself, without
 * credentials (they hold no data) and without the internet (the chart library comes
 * from a webjar); {@code /} leads a browser there. The data stays behind authentication.
 */
class DashboardPageTest extends ApiTestSupport {

    @Test
    void theRootLeadsToTheDashboard() {
        Response root = call("GET", "/", null, null, "text/html", false);
        assertThat(root.code()).isEqualTo(302);
        assertThat(root.headers().firstValue("Location").orElseThrow()).endsWith("/dashboard/");
    }

    @Test
    void thePageItsScriptsAndItsChartLibraryAreServedWithoutCredentials() {
        Response page = call("GET", "/dashboard/", null, null, "text/html", false);
        assertThat(page.code()).isEqualTo(200);
        assertThat(page.body()).contains("<title>Cybernetes dashboard</title>", "app.js",
                "/webjars/uplot/1.6.30/dist/uPlot.iife.min.js");
        assertThat(call("GET", "/dashboard/app.js", null, null, "*/*", false).body()).contains("function follow(");
        Response chart = call("GET", "/webjars/uplot/1.6.30/dist/uPlot.iife.min.js", null, null, "*/*", false);
        assertThat(chart.code()).isEqualTo(200);
        assertThat(chart.body()).contains("uPlot");
    }

    @Test
    void theDataStaysBehindAuthentication() {
        assertThat(call("GET", "/api/v1/pods", null, null, "application/json", false).code()).isEqualTo(401);
        assertThat(call("GET", "/dashboard/../api/v1/pods", null, null, "application/json", false).code())
                .isIn(400, 401, 404);
    }
}
