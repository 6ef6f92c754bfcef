"""Spirit page parsing that a small forum never shows: topic lists of several pages."""

from __future__ import annotations

from bs4 import BeautifulSoup

from tianshen.forum.spirit import parse_pages


def soup(html: str) -> BeautifulSoup:
    return BeautifulSoup(html, "lxml")


def test_comment_pages_say_page_n_of_m() -> None:
    html = '<ul class="paginator"><li class="paginator__pages">Page 2 of 3</li></ul>'
    assert parse_pages(soup(html)) == (2, 3)


def test_topic_lists_show_page_buttons() -> None:
    first = ('<ul class="paginator"><li class="paginator__button"><span>1</span></li>'
             '<li class="paginator__button"><a href="?page=2">2</a></li>'
             '<li class="paginator__button"><a href="?page=2"><i class="fa fa-chevron-right"></i></a></li></ul>')
    assert parse_pages(soup(first)) == (1, 2)
    middle = ('<ul class="paginator"><li class="paginator__button"><a href="?page=1">1</a></li>'
              '<li class="paginator__button"><span>2</span></li>'
              '<li class="paginator__button"><a href="?page=3"><i class="fa fa-chevron-right"></i></a></li></ul>')
    assert parse_pages(soup(middle)) == (2, 3)  # the arrow: at least one more page
    last = ('<ul class="paginator"><li class="paginator__button"><a href="?page=2">2</a></li>'
            '<li class="paginator__button"><span>3</span></li></ul>')
    assert parse_pages(soup(last)) == (3, 3)
    assert parse_pages(soup("<div>no paginator</div>")) == (1, 1)
