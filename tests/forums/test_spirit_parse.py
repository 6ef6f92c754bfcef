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


def _comment(pk: int, author: str, body: str) -> str:
    return (f'<div class="comments_list__comment js-comment" data-pk="{pk}" data-number="{pk}">'
            f'<a class="comment__info__username__link"><span>{author}</span></a>'
            f'<ul class="comment__info__date"><li title="2026-01-02 12:00:00">now</li></ul>'
            f'<div class="comment__text">{body}</div></div>')


def test_a_vote_inside_a_quote_never_counts_on_spirit() -> None:
    """A Markdown quote's paragraph runs on over the next lines, so the page cannot tell a
    quoted second line from one typed after the quote: the players' comments are read
    without their quotes (as Discuz's are), the whole comment kept in `full_text`."""
    from types import SimpleNamespace

    from tianshen.core.vote_post import read_vote_post
    from tianshen.forum.spirit import SpiritForum, parse_rows

    names = ["寒梅", "白狐", "丙"]
    quoted = "<blockquote><p>@白狐 said:<br>\n天神作废了我的票<br>\n投票 寒梅，理由同上</p></blockquote>"
    page = ('<div class="comments_list">'
            + _comment(1, "丙", quoted)  # Spirit's quote button: 白狐's vote on the quote's second line
            + _comment(2, "白狐", quoted + "<p>投票 丙</p>")  # his own vote after the quote counts
            + "</div>")
    rows = parse_rows(soup(page))
    posts = SpiritForum._posts(SimpleNamespace(_original=lambda row: None), "7", rows)  # type: ignore[arg-type]
    assert read_vote_post(posts[0].text, names) is None
    assert "投票 寒梅" in posts[0].full_text  # the GM's listing still shows the quote
    own = read_vote_post(posts[1].text, names)
    assert own is not None and own.name == "丙"
