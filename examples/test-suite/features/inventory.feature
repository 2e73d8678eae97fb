Feature: stock
  # The same second file for cucumber-js.

  Scenario: an urgent order takes its items once
    When an urgent order takes 2 of 5 apples
    Then 3 apples are left
