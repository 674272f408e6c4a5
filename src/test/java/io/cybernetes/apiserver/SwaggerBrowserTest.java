package io.cybernetes.apiserver;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.openqa.selenium.Alert;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

import java.io.File;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Swagger UI in headless Chromium against a server whose OpenAPI document needs a token:
 * the page asks for one, loads the document with it, keeps it across a reload, and a
 * call tried out from the page runs as that token's user.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SwaggerBrowserTest extends ApiTestSupport {

    WebDriver driver;

    @BeforeAll
    void browser() {
        ChromeOptions options = new ChromeOptions();
        options.setBinary("/usr/bin/chromium");
        options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--disable-background-networking", "--window-size=1280,900");
        driver = new ChromeDriver(new ChromeDriverService.Builder()
                .usingDriverExecutable(new File("/usr/bin/chromedriver")).build(), options);
    }

    @AfterAll
    void quit() {
        if (driver != null) {
            driver.quit();
        }
    }

    @Test
    void thePageAsksForATokenLoadsTheDocumentWithItAndTriesCallsAsItsUser() {
        WebDriverWait wait = new WebDriverWait(driver, Duration.ofSeconds(30));
        driver.get(url("/swagger-ui/index.html"));
        Alert ask = wait.until(ExpectedConditions.alertIsPresent());
        assertThat(ask.getText()).contains("bearer token", "data/pki/admin.token");
        ask.sendKeys(token());
        ask.accept();
        WebElement tag = wait.until(ExpectedConditions.presenceOfElementLocated(
                By.xpath("//*[contains(@class,'opblock-tag') and contains(.,'core/v1 Namespace')]")));
        assertThat(tag.isDisplayed()).isTrue();

        driver.navigate().refresh();
        wait.until(ExpectedConditions.presenceOfElementLocated(
                By.xpath("//*[contains(@class,'opblock-tag') and contains(.,'core/v1 Namespace')]")));
        assertThat(ExpectedConditions.alertIsPresent().apply(driver)).as("the token is kept").isNull();

        // "Try it out" on GET /api/v1/namespaces runs with the token the page was given
        WebElement op = wait.until(ExpectedConditions.presenceOfElementLocated(By.xpath(
                "//div[contains(@class,'opblock-get')][.//*[@data-path='/api/v1/namespaces']]")));
        ((JavascriptExecutor) driver).executeScript("arguments[0].scrollIntoView(true);", op);
        op.findElement(By.cssSelector(".opblock-summary")).click();
        wait.until(ExpectedConditions.elementToBeClickable(op.findElement(By.cssSelector(".try-out__btn")))).click();
        wait.until(ExpectedConditions.elementToBeClickable(op.findElement(By.cssSelector(".execute")))).click();
        WebElement code = wait.until(d -> op.findElements(By.cssSelector(".live-responses-table .response-col_status"))
                .stream().filter(e -> e.getText().matches("\\d{3}.*")).findFirst().orElse(null));
        assertThat(code.getText()).startsWith("200");
    }
}
