package io.cybernetes.dashboard.internal;

import org.springframework.context.annotation.Configuration;
import org.springframework.web.servlet.config.annotation.ViewControllerRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * Serves the dashboard: {@code /} leads a browser to {@code /dashboard/}, whose page and
 * scripts come from the jar (and its chart library from a webjar, so the page works
 * without internet). The page itself holds no data and is open; every call it makes
 * carries the user's token through authentication and RBAC.
 */
@Configuration(proxyBeanMethods = false)
class DashboardConfiguration implements WebMvcConfigurer {

    @Override
    public void addViewControllers(ViewControllerRegistry registry) {
        registry.addRedirectViewController("/", "/dashboard/");
        registry.addRedirectViewController("/dashboard", "/dashboard/");
        registry.addViewController("/dashboard/").setViewName("forward:/dashboard/index.html");
    }
}
